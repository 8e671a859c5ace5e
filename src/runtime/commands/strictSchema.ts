/**
 * Whether a tool's input JSON Schema may be sent with `strict: true`, the
 * Messages API's grammar-constrained tool use, whose JSON Schema subset is
 * narrower than JSON Schema: every object closed (`additionalProperties:
 * false`), no recursion, only local `$ref`s, and none of the string, number
 * or array bounds (`minLength`, `pattern`, `minimum`, `maxItems`, …). A
 * schema the API would refuse fails the whole request with a 400, so the
 * check admits only the keywords the subset lists and refuses the rest,
 * unknown ones included: a schema in doubt is sent without `strict`.
 *
 * `pattern` is refused though the API takes a subset of regular
 * expressions: which patterns are too complex it does not say, and the
 * official SDK's own transform leaves `pattern` out of what it sends.
 */
import type { JsonSchema } from "./command.ts";

/** The most tools of one request that may be strict. */
export const STRICT_TOOLS_PER_REQUEST = 20;
/** The most optional parameters (properties not `required`) across a request's strict schemas. */
export const STRICT_OPTIONAL_PARAMETERS = 24;
/** The most parameters with a union type (`anyOf`, a type array) across a request's strict schemas. */
export const STRICT_UNION_PARAMETERS = 16;

/** What a schema spends of a request's strict limits. */
export interface StrictCost {
  /** Properties not listed in `required`, each time its object is reached. */
  readonly optional: number;
  /** Schemas using `anyOf` or a type array, each time reached. */
  readonly unions: number;
}

/** The verdict: strict, at a cost; or not, with where and why (for developers, not the model). */
export type StrictCheck =
  | ({ readonly strict: true } & StrictCost)
  | { readonly strict: false; readonly at: string; readonly reason: string };

const TYPES = new Set(["object", "array", "string", "integer", "number", "boolean", "null"]);
const FORMATS = new Set([
  "date-time",
  "time",
  "date",
  "duration",
  "email",
  "hostname",
  "uri",
  "ipv4",
  "ipv6",
  "uuid",
]);
/** The keywords of the subset: any other is refused, wherever it is. */
const KEYWORDS = new Set([
  "type",
  "properties",
  "required",
  "additionalProperties",
  "items",
  "minItems",
  "enum",
  "const",
  "anyOf",
  "allOf",
  "$ref",
  "$defs",
  "definitions",
  "default",
  "format",
  "description",
  "title",
]);
/** What may stand beside a `$ref`: words, and a default. */
const BESIDE_REF = new Set(["$ref", "description", "title", "default"]);
/** Where a refusal is: the schema is a tool's `input_schema`. */
const ROOT = "input_schema";
/** The most schema nodes walked, `$ref`s expanded; past it the schema is refused as too large. */
const MAX_NODES = 10_000;

class Refused {
  constructor(
    readonly at: string,
    readonly reason: string,
  ) {}
}

type Node = Readonly<Record<string, unknown>>;

const isNode = (value: unknown): value is Node =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const isPrimitive = (value: unknown): boolean =>
  value === null ||
  typeof value === "string" ||
  typeof value === "boolean" ||
  (typeof value === "number" && Number.isFinite(value));

const hasRef = (value: unknown): boolean => {
  if (Array.isArray(value)) return value.some(hasRef);
  if (!isNode(value)) return false;
  return "$ref" in value || Object.values(value).some(hasRef);
};

/** A local `$ref`'s target name and table (`#/$defs/Name`, `#/definitions/Name`), or undefined. */
const localRef = (ref: string): { readonly table: string; readonly name: string } | undefined => {
  const m = /^#\/(\$defs|definitions)\/([^/]+)$/.exec(ref);
  if (m === null) return undefined;
  return { table: m[1] as string, name: (m[2] as string).replace(/~1/g, "/").replace(/~0/g, "~") };
};

/**
 * Checks `schema` against the strict subset: where it is refused, and why;
 * or what it spends of the request's limits (a schema that alone exceeds
 * them is refused). The root must be an object: a tool's input is one.
 *
 * @example
 * ```ts
 * strictCheck({ type: "object", properties: { id: { type: "number" } }, required: ["id"], additionalProperties: false });
 * // { strict: true, optional: 0, unions: 0 }
 * strictCheck({ type: "object", properties: { q: { type: "string", minLength: 1 } }, additionalProperties: false });
 * // { strict: false, at: "input_schema.properties.q", reason: "minLength is not supported" }
 * ```
 */
export const strictCheck = (schema: JsonSchema): StrictCheck => {
  const cost = { optional: 0, unions: 0, nodes: 0 };
  const expanding: string[] = [];

  const walk = (node: unknown, at: string, root: boolean): void => {
    if (++cost.nodes > MAX_NODES) throw new Refused(at, `more than ${MAX_NODES} schemas to check`);
    if (!isNode(node)) throw new Refused(at, "a schema must be an object");
    for (const key of Object.keys(node)) {
      if (!KEYWORDS.has(key)) throw new Refused(at, `${key} is not supported`);
    }
    for (const key of ["$defs", "definitions"])
      if (key in node && !root) throw new Refused(at, `${key} is only read at the root`);
    for (const key of ["description", "title"])
      if (key in node && typeof node[key] !== "string")
        throw new Refused(at, `${key} must be a string`);
    if ("$ref" in node) {
      if (root) throw new Refused(at, 'the root must be of type "object", not a $ref');
      reference(node, at);
      return;
    }
    const types = typesOf(node, at);
    if (root && (types === undefined || types.length !== 1 || types[0] !== "object"))
      throw new Refused(at, 'the root must be of type "object"');
    const literal = "enum" in node || "const" in node;
    if (types === undefined && !literal && !("anyOf" in node) && !("allOf" in node))
      throw new Refused(at, "no type: any value would do");
    if ("enum" in node) {
      const values = node.enum;
      if (!Array.isArray(values) || values.length === 0 || !values.every(isPrimitive))
        throw new Refused(at, "enum must list strings, numbers, booleans or null");
    }
    if ("const" in node && !isPrimitive(node.const))
      throw new Refused(at, "const must be a string, number, boolean or null");
    const has = (type: string) => types?.includes(type) === true;
    if (has("object")) object(node, at);
    else
      for (const key of ["properties", "required", "additionalProperties"])
        if (key in node) throw new Refused(at, `${key} belongs to an object`);
    if (has("array")) array(node, at);
    else
      for (const key of ["items", "minItems"])
        if (key in node) throw new Refused(at, `${key} belongs to an array`);
    if ("format" in node) {
      if (!has("string")) throw new Refused(at, "format belongs to a string");
      if (typeof node.format !== "string" || !FORMATS.has(node.format))
        throw new Refused(at, `format ${JSON.stringify(node.format)} is not supported`);
    }
    if ("anyOf" in node) {
      cost.unions++;
      members(node.anyOf, `${at}.anyOf`);
    }
    if ("allOf" in node) {
      if (hasRef(node.allOf)) throw new Refused(`${at}.allOf`, "allOf with $ref is not supported");
      members(node.allOf, `${at}.allOf`);
    }
    if (root) for (const key of ["$defs", "definitions"]) definitions(node[key], key);
  };

  const typesOf = (node: Node, at: string): ReadonlyArray<string> | undefined => {
    if (!("type" in node)) return undefined;
    const type = node.type;
    if (typeof type === "string" && TYPES.has(type)) return [type];
    if (
      Array.isArray(type) &&
      type.length > 0 &&
      type.every((t) => typeof t === "string" && TYPES.has(t)) &&
      new Set(type).size === type.length
    ) {
      if (type.length > 1) cost.unions++;
      return type as ReadonlyArray<string>;
    }
    throw new Refused(at, `type ${JSON.stringify(type)} is not one of the JSON types`);
  };

  const object = (node: Node, at: string): void => {
    if (node.additionalProperties !== false)
      throw new Refused(at, "an object must have additionalProperties: false");
    const properties = node.properties ?? {};
    if (!isNode(properties)) throw new Refused(at, "properties must be an object of schemas");
    const names = Object.keys(properties);
    const required = node.required ?? [];
    if (
      !Array.isArray(required) ||
      !required.every((name) => typeof name === "string" && Object.hasOwn(properties, name)) ||
      new Set(required).size !== required.length
    )
      throw new Refused(at, "required must name properties of the object, once each");
    cost.optional += names.length - required.length;
    for (const name of names) walk(properties[name], `${at}.properties.${name}`, false);
  };

  const array = (node: Node, at: string): void => {
    if (!isNode(node.items)) throw new Refused(at, "an array must give one schema as items");
    if ("minItems" in node && node.minItems !== 0 && node.minItems !== 1)
      throw new Refused(at, `minItems ${JSON.stringify(node.minItems)} is not 0 or 1`);
    walk(node.items, `${at}.items`, false);
  };

  const members = (list: unknown, at: string): void => {
    if (!Array.isArray(list) || list.length === 0)
      throw new Refused(at, "must list at least one schema");
    for (const [i, member] of list.entries()) walk(member, `${at}[${i}]`, false);
  };

  const reference = (node: Node, at: string): void => {
    for (const key of Object.keys(node))
      if (!BESIDE_REF.has(key)) throw new Refused(at, `${key} beside $ref is not supported`);
    const ref = node.$ref;
    const target = typeof ref === "string" ? localRef(ref) : undefined;
    if (target === undefined)
      throw new Refused(at, `$ref ${JSON.stringify(ref)} is not a local #/$defs/ reference`);
    const table = schema[target.table];
    const found =
      isNode(table) && Object.hasOwn(table, target.name) ? table[target.name] : undefined;
    if (found === undefined) throw new Refused(at, `$ref ${JSON.stringify(ref)} names no schema`);
    const key = `${target.table}/${target.name}`;
    if (expanding.includes(key)) throw new Refused(at, `$ref ${JSON.stringify(ref)} is recursive`);
    expanding.push(key);
    walk(found, `${at}→${key}`, false);
    expanding.pop();
  };

  const definitions = (table: unknown, key: string): void => {
    if (table === undefined) return;
    if (!isNode(table)) throw new Refused(`${ROOT}.${key}`, `${key} must be an object of schemas`);
    // Each is checked as written too (one no $ref reaches would still be sent), at no cost.
    const spent = { optional: cost.optional, unions: cost.unions };
    for (const name of Object.keys(table)) {
      expanding.push(`${key}/${name}`);
      walk(table[name], `${ROOT}.${key}.${name}`, false);
      expanding.pop();
    }
    cost.optional = spent.optional;
    cost.unions = spent.unions;
  };

  try {
    walk(schema, ROOT, true);
  } catch (error) {
    if (error instanceof Refused) return { strict: false, at: error.at, reason: error.reason };
    throw error;
  }
  if (cost.optional > STRICT_OPTIONAL_PARAMETERS)
    return {
      strict: false,
      at: ROOT,
      reason: `${cost.optional} optional parameters, over the ${STRICT_OPTIONAL_PARAMETERS} a request's strict schemas may have`,
    };
  if (cost.unions > STRICT_UNION_PARAMETERS)
    return {
      strict: false,
      at: ROOT,
      reason: `${cost.unions} union-typed parameters, over the ${STRICT_UNION_PARAMETERS} a request's strict schemas may have`,
    };
  return { strict: true, optional: cost.optional, unions: cost.unions };
};

/**
 * Whether `schema` may be sent with `strict: true`: every keyword in the
 * strict subset, every object closed, no recursion, within the request's
 * limits alone. See {@link strictCheck} for why not.
 *
 * @example
 * ```ts
 * strictAllowed({ type: "object", properties: {}, required: [], additionalProperties: false }); // true
 * strictAllowed({ type: "object", properties: { n: { type: "integer", minimum: 1 } }, additionalProperties: false }); // false
 * ```
 */
export const strictAllowed = (schema: JsonSchema): boolean => strictCheck(schema).strict;
