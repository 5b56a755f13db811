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

/** The provider's config fields in the order its schema asks for (x-order, then the rest). */
export function configFields(provider: Provider): ConfigField[] {
  const schema = provider.config_schema as { properties?: Record<string, SchemaProperty>; "x-order"?: string[] };
  const properties = schema.properties ?? {};
  const order = (schema["x-order"] ?? []).filter((key) => key in properties);
  const rest = Object.keys(properties).filter((key) => !order.includes(key));
  return [...order, ...rest].map((key) => ({ key, schema: properties[key]! }));
}

export function isListField(schema: SchemaProperty) {
  return schema.type === "array";
}

export function isNumberField(schema: SchemaProperty) {
  return schema.type === "integer" || schema.type === "number";
}
