import type { Provider } from "../../../api/types";

/** The parts of a JSON Schema property that the form reads. */
export interface SchemaProperty {
  type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  title?: string;
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  enum?: unknown[];
  format?: string;
  maxItems?: number;
  items?: { type?: string; format?: string };
  /** Shown, but takes nothing but its default: the provider cannot set it. */
  readOnly?: boolean;
  multipleOf?: number;
  /** An object's own fields, in the order "x-order" gives. */
  properties?: Record<string, SchemaProperty>;
  "x-order"?: string[];
  /** An object of free names (such as env): the schema of each value. */
  additionalProperties?: boolean | SchemaProperty;
}

export interface ConfigField {
  key: string;
  schema: SchemaProperty;
}

interface ConfigSchema {
  properties?: Record<string, SchemaProperty>;
  "x-order"?: string[];
  /** The keys every provider shares. */
  "x-common"?: string[];
}

/** The fields of an object schema in the order it asks for (x-order, then the rest). */
function orderedFields(schema: { properties?: Record<string, SchemaProperty>; "x-order"?: string[] }): ConfigField[] {
  const properties = schema.properties ?? {};
  const order = (schema["x-order"] ?? []).filter((key) => key in properties);
  const rest = Object.keys(properties).filter((key) => !order.includes(key));
  return [...order, ...rest].map((key) => ({ key, schema: properties[key]! }));
}

/** The provider's config fields in the order its schema asks for. */
export function configFields(provider: Provider): ConfigField[] {
  return orderedFields(provider.config_schema as ConfigSchema);
}

/** The fields of an object field (network, resources), in order. */
export function objectFields(schema: SchemaProperty): ConfigField[] {
  return orderedFields(schema);
}

/**
 * The error keys of the fields, at any depth, below prefix: an object
 * field's own key and each of its fields' ("config.network",
 * "config.network.allow", …), so the server's errors land on the input.
 */
export function fieldKeys(fields: ConfigField[], prefix: string): string[] {
  return fields.flatMap(({ key, schema }) => [
    `${prefix}.${key}`,
    ...(isObjectField(schema) ? fieldKeys(objectFields(schema), `${prefix}.${key}`) : []),
  ]);
}

/**
 * The config fields in two sections: the provider's own, and those every
 * provider shares (x-common), which the form shows alike for all.
 */
export function configSections(provider: Provider): { own: ConfigField[]; common: ConfigField[] } {
  const common = new Set((provider.config_schema as ConfigSchema)["x-common"] ?? []);
  const fields = configFields(provider);
  return { own: fields.filter((f) => !common.has(f.key)), common: fields.filter((f) => common.has(f.key)) };
}

/** A list of pip requirements, which may be typed comma-separated too. */
export function isRequirementsField(schema: SchemaProperty) {
  return schema.type === "array" && schema.items?.format === "pip-requirement";
}

export function isListField(schema: SchemaProperty) {
  return schema.type === "array" || isMapField(schema);
}

export function isNumberField(schema: SchemaProperty) {
  return schema.type === "integer" || schema.type === "number";
}

/** An object with fields of its own, shown as a fieldset of them. */
export function isObjectField(schema: SchemaProperty) {
  return schema.type === "object" && schema.properties !== undefined;
}

/** An object of free names and text values (env), edited as NAME=value lines. */
export function isMapField(schema: SchemaProperty) {
  return schema.type === "object" && schema.properties === undefined && typeof schema.additionalProperties === "object";
}

// The settings most sandboxes keep at their defaults: warm pools, keeping
// files, resources and network, shown folded under "Advanced settings".
const advancedCommon = new Set(["pool", "keep_files", "max_kept_days", "resources", "network"]);

/** Whether a config field belongs in the Advanced fold: the settings above, and any token setting. */
export function isAdvancedField(key: string): boolean {
  return advancedCommon.has(key) || key.includes("token");
}

/** Whether any of these error keys ("config.network.allow") names a field in the Advanced fold. */
export function hitsAdvanced(errorKeys: string[]): boolean {
  return errorKeys.some((k) => k.startsWith("config.") && isAdvancedField(k.slice("config.".length).split(".")[0]!));
}

/** The id of the control an error key names, for an error summary's link to it. */
export function fieldId(errorKey: string): string {
  return `sandbox-${errorKey.replace(/[^A-Za-z0-9_-]/g, "-")}`;
}

/**
 * What each error key below prefix is called on screen: a field's title,
 * an object's own fields after the object's ("Warm pool: Size").
 */
export function fieldLabels(fields: ConfigField[], prefix: string, within = ""): Record<string, string> {
  return Object.assign(
    {},
    ...fields.map(({ key, schema }) => {
      const label = `${within}${schema.title ?? key}`;
      const own = { [`${prefix}.${key}`]: label };
      return isObjectField(schema) ? { ...own, ...fieldLabels(objectFields(schema), `${prefix}.${key}`, `${label}: `) } : own;
    }),
  ) as Record<string, string>;
}
