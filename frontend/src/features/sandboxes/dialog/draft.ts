import type { Provider, Sandbox, SandboxCreate, SandboxPatch, SecretHint } from "../../../api/types";
import { configFields, isListField, isMapField, isNumberField, isObjectField, objectFields, type ConfigField } from "./schema";


/**
 * A config value as the form holds it: numbers stay text while typed; an
 * object (network, resources) holds its fields' values; an object of free
 * names (env) is its NAME=value lines.
 */
export type ConfigValue = string | boolean | string[] | ConfigObject;
export interface ConfigObject {
  [key: string]: ConfigValue;
}

/** The Add / Edit sandbox form, as typed so far. */
export interface SandboxDraft {
  provider: string;
  name: string;
  description: string;
  url: string;
  /** What was typed; empty keeps a stored secret when editing. */
  secret: string;
  /** Editing only: remove the stored secret. */
  clearSecret: boolean;
  config: Record<string, ConfigValue>;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function formValue(field: ConfigField, value: unknown): ConfigValue {
  if (isObjectField(field.schema)) {
    const saved = isRecord(value) ? value : {};
    return Object.fromEntries(objectFields(field.schema).map((f) => [f.key, formValue(f, saved[f.key] ?? f.schema.default)]));
  }
  if (isMapField(field.schema)) return isRecord(value) ? Object.entries(value).map(([k, v]) => `${k}=${String(v)}`) : [];
  if (isListField(field.schema)) return Array.isArray(value) ? value.map(String) : [];
  if (field.schema.type === "boolean") return value === true;
  if (value === undefined || value === null) return "";
  return String(value);
}

/** A new sandbox of a provider: every field holds the server's default. */
export function newDraft(provider: Provider): SandboxDraft {
  return {
    provider: provider.name,
    name: "",
    description: "",
    url: provider.url.accepted ? provider.url.default : "",
    secret: "",
    clearSecret: false,
    config: Object.fromEntries(configFields(provider).map((f) => [f.key, formValue(f, f.schema.default)])),
  };
}

/** The form for editing a saved sandbox (its secret is never sent to us). */
export function draftOf(sandbox: Sandbox, provider: Provider): SandboxDraft {
  const saved = sandbox.config as Record<string, unknown>;
  return {
    provider: sandbox.provider,
    name: sandbox.name,
    description: sandbox.description,
    url: sandbox.url,
    secret: "",
    clearSecret: false,
    config: Object.fromEntries(configFields(provider).map((f) => [f.key, formValue(f, saved[f.key])])),
  };
}

/** The JSON value of one config field; undefined when left empty (the default applies). */
function apiValue(field: ConfigField, value: ConfigValue | undefined): unknown {
  if (value === undefined) return undefined;
  if (isObjectField(field.schema)) {
    const object = isRecord(value) ? (value as ConfigObject) : {};
    const out: Record<string, unknown> = {};
    for (const f of objectFields(field.schema)) {
      const v = apiValue(f, object[f.key]);
      if (v !== undefined) out[f.key] = v;
    }
    return out;
  }
  if (isMapField(field.schema)) return Array.isArray(value) ? mapOf(value) : {};
  if (isNumberField(field.schema)) {
    if (typeof value !== "string" || value.trim() === "") return undefined;
    const n = Number(value);
    // Anything that is not a number goes as typed, for the server to name the field.
    return Number.isFinite(n) ? n : value;
  }
  return value;
}

function apiConfig(provider: Provider, draft: SandboxDraft): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of configFields(provider)) {
    const value = apiValue(field, draft.config[field.key]);
    if (value !== undefined) config[field.key] = value;
  }
  return config;
}

/**
 * The body of POST /sandboxes (and of the probe of an unsaved form). The spec
 * narrows a body's config on its provider; the form is drawn from the
 * provider's config_schema at run time, so the body is typed as whichever
 * variant its provider names.
 */
export function createBody(provider: Provider, draft: SandboxDraft): SandboxCreate {
  return {
    name: draft.name.trim(),
    description: draft.description.trim(),
    provider: provider.name,
    ...(provider.url.accepted ? { url: draft.url.trim() } : {}),
    ...(provider.secret.accepted && draft.secret !== "" ? { secret: draft.secret } : {}),
    config: apiConfig(provider, draft),
  } as SandboxCreate;
}

/** NAME=value lines as an object; a line without = names an empty value. */
function mapOf(lines: string[]): Record<string, string> {
  return Object.fromEntries(
    lines.map((line) => {
      const at = line.indexOf("=");
      return at < 0 ? [line, ""] : [line.slice(0, at), line.slice(at + 1)];
    }),
  );
}

function sameValue(a: unknown, b: unknown) {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The merge patch of one field from saved to edited, undefined when equal:
 * an object's changed fields only; a name gone from an env is null.
 */
function patchValue(field: ConfigField, edited: ConfigValue | undefined, saved: ConfigValue | undefined): unknown {
  if (sameValue(edited, saved)) return undefined;
  if (isObjectField(field.schema) && isRecord(edited) && isRecord(saved)) {
    const out: Record<string, unknown> = {};
    for (const f of objectFields(field.schema)) {
      const v = patchValue(f, (edited as ConfigObject)[f.key], (saved as ConfigObject)[f.key]);
      if (v !== undefined) out[f.key] = v;
    }
    return out;
  }
  if (isMapField(field.schema) && Array.isArray(edited) && Array.isArray(saved)) {
    const after = mapOf(edited);
    const out: Record<string, unknown> = { ...after };
    for (const name of Object.keys(mapOf(saved))) if (!(name in after)) out[name] = null;
    return out;
  }
  return apiValue(field, edited) ?? null;
}

/**
 * The JSON merge patch from the saved form to the edited one: only what
 * changed; an emptied number resets to its default (null); the secret only
 * when typed (or cleared).
 */
export function mergePatch(provider: Provider, saved: SandboxDraft, draft: SandboxDraft): SandboxPatch {
  const patch: SandboxPatch = {};
  if (draft.name.trim() !== saved.name) patch.name = draft.name.trim();
  if (draft.description.trim() !== saved.description) patch.description = draft.description.trim();
  if (provider.url.accepted && draft.url.trim() !== saved.url) patch.url = draft.url.trim();
  if (draft.clearSecret) patch.secret = null;
  else if (draft.secret !== "") patch.secret = draft.secret;

  const config: Record<string, unknown> = {};
  for (const field of configFields(provider)) {
    const value = patchValue(field, draft.config[field.key], saved.config[field.key]);
    if (value !== undefined) config[field.key] = value;
  }
  if (Object.keys(config).length > 0) patch.config = config;
  return patch;
}

/** Labels of the required fields still empty; Save waits for none. */
export function missingRequired(provider: Provider, draft: SandboxDraft, hint?: SecretHint): string[] {
  const missing: string[] = [];
  if (draft.name.trim() === "") missing.push("Name");
  if (provider.url.accepted && provider.url.required && draft.url.trim() === "") missing.push(provider.url.label);
  const storedSecret = hint?.is_set === true && !draft.clearSecret;
  if (provider.secret.accepted && provider.secret.required && draft.secret === "" && !storedSecret) {
    missing.push(provider.secret.label);
  }
  return missing;
}
