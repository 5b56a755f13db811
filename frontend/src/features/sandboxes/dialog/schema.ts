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

/**
 * The provider's config fields in the order its schema asks for (x-order,
 * then the rest). A nested object (the warm pool) has no field of its own
 * yet: the form leaves it out, so a new sandbox takes its default and an
 * edit keeps what is saved.
 */
export function configFields(provider: Provider): ConfigField[] {
  const schema = provider.config_schema as ConfigSchema;
  const properties = schema.properties ?? {};
  const order = (schema["x-order"] ?? []).filter((key) => key in properties);
  const rest = Object.keys(properties).filter((key) => !order.includes(key));
  return [...order, ...rest]
    .filter((key) => properties[key]!.type !== "object")
    .map((key) => ({ key, schema: properties[key]! }));
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

export function isListField(schema: SchemaProperty) {
  return schema.type === "array";
}

export function isNumberField(schema: SchemaProperty) {
  return schema.type === "integer" || schema.type === "number";
}
