import { useEffect, useId, useMemo, useRef, useState, type FormEvent, type ReactNode } from "react";
import { useQueryClient } from "@tanstack/react-query";
import { sandboxKeys } from "../../../api/keys";
import { ApiError, describeError, isApiError } from "../../../api/problem";
import type { ProbeResult, Provider, SecretHint } from "../../../api/types";
import { Button } from "../../../ui/Button";
import { DialogCancel, DialogFooter } from "../../../ui/Dialog";
import { ErrorSummary, type FieldProblem } from "../../../ui/ErrorSummary";
import { Field } from "../../../ui/Field";
import { ProblemMessage } from "../../../ui/ProblemMessage";
import { useCreateSandbox } from "../api/createSandbox";
import type { VersionedSandbox } from "../api/getSandbox";
import { usePatchSandbox } from "../api/patchSandbox";
import { useProbeDraft } from "../api/probeDraft";
import { probeSandbox, useProbeSandbox } from "../api/probeSandbox";
import { ConfigFields } from "./ConfigFields";
import { createBody, draftOf, mergePatch, missingRequired, newDraft, type ConfigValue, type SandboxDraft } from "./draft";
import { placeFieldErrors, type PlacedErrors } from "../../../api/fieldErrors";
import { ProviderPicker } from "./ProviderPicker";
import { configFields, configSections, fieldId, fieldKeys, fieldLabels, hitsAdvanced, isAdvancedField } from "./schema";
import { SecretField } from "./SecretField";
import { TestConnection } from "./TestConnection";
import "../sandboxes.css";

interface SandboxFormProps {
  providers: Provider[];
  /** The sandbox being edited, as read with its ETag. */
  saved?: VersionedSandbox;
  hint?: SecretHint;
  onDone: () => void;
  /** Saved, but the connection test that followed failed: the dialog says so and stays open. */
  onTestFailed?: (id: string, result: ProbeResult) => void;
  /** Whether the form differs from how it opened, for the dialog to ask before discarding it. */
  onDirtyChange?: (dirty: boolean) => void;
}

const noErrors: PlacedErrors = { byField: {}, unplaced: [] };

/** The first control a person fills in: a checked radio stands for its group. */
const firstField = 'input:not([disabled]):not([type="radio"]), input[type="radio"]:checked:not([disabled]), select, textarea';

export function SandboxForm({ providers, saved, hint, onDone, onTestFailed, onDirtyChange }: SandboxFormProps) {
  const editing = saved !== undefined;
  const initialProvider = saved
    ? providers.find((p) => p.name === saved.sandbox.provider)
    : (providers.find((p) => p.enabled) ?? providers[0]);

  const savedDraft = useMemo(
    () => (saved && initialProvider ? draftOf(saved.sandbox, initialProvider) : undefined),
    [saved, initialProvider],
  );
  const [draft, setDraft] = useState<SandboxDraft | undefined>(() =>
    savedDraft ?? (initialProvider ? newDraft(initialProvider) : undefined),
  );
  const [errors, setErrors] = useState<PlacedErrors>(noErrors);
  // The refused fields, for the summary beside Save; shown only after a save.
  const [summarised, setSummarised] = useState<PlacedErrors>(noErrors);
  const [problem, setProblem] = useState<unknown>();
  const [probe, setProbe] = useState<ProbeResult>();
  // Bumped when the server rejects fields, to bring the first of them into view.
  const [rejections, setRejections] = useState(0);
  // The Advanced fold: closed at first, opened by the person or by an error inside it.
  const [advancedOpen, setAdvancedOpen] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  // The dialog opens on the form's first field (the chosen provider, or the
  // name when editing), not on its Close button or the provider list itself.
  useEffect(() => {
    formRef.current?.querySelector<HTMLElement>(firstField)?.focus();
  }, []);

  useEffect(() => {
    if (rejections > 0) formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [rejections]);

  const queryClient = useQueryClient();
  const create = useCreateSandbox();
  const patch = usePatchSandbox();
  const probeDraft = useProbeDraft();
  const probeSaved = useProbeSandbox();
  // Save & test: after a save that may change how the provider is reached, the probe's answer.
  const [testingSaved, setTestingSaved] = useState(false);
  const [testProblem, setTestProblem] = useState<string>();

  const provider = providers.find((p) => p.name === draft?.provider);
  // Changes not saved: the draft differs from the saved sandbox, or from the
  // chosen provider's defaults (choosing a provider alone loses nothing).
  const pristine = savedDraft ?? (provider ? newDraft(provider) : undefined);
  const dirty = draft !== undefined && JSON.stringify(draft) !== JSON.stringify(pristine);
  useEffect(() => onDirtyChange?.(dirty), [dirty, onDirtyChange]);
  const problems = useMemo(() => (provider ? summaryOf(provider, summarised) : []), [provider, summarised]);
  if (!draft || !provider) {
    return <ProblemMessage error={new Error("This server offers no sandbox provider for this form.")} />;
  }

  const fields = configFields(provider);
  const sections = configSections(provider);
  const advanced = [...sections.own, ...sections.common].filter((f) => isAdvancedField(f.key));
  const errorKeys = ["name", "description", "url", "secret", "provider", ...fieldKeys(fields, "config")];
  const missing = missingRequired(provider, draft, hint);
  const saving = create.isPending || patch.isPending || testingSaved;
  const probing = probeDraft.isPending || probeSaved.isPending;

  const update = (changes: Partial<SandboxDraft>, fieldKey?: string) => {
    setDraft({ ...draft, ...changes });
    setProbe(undefined);
    // An edited field's old complaint no longer applies.
    if (fieldKey && errors.byField[fieldKey]) {
      const { [fieldKey]: _dropped, ...rest } = errors.byField;
      setErrors({ ...errors, byField: rest });
    }
  };
  const updateConfig = (key: string, value: ConfigValue, fieldKey: string) =>
    update({ config: { ...draft.config, [key]: value } }, fieldKey);

  const pickProvider = (name: string) => {
    const next = providers.find((p) => p.name === name);
    if (!next) return;
    // What was typed into the common fields survives a change of provider.
    setDraft({ ...newDraft(next), name: draft.name, description: draft.description });
    setErrors(noErrors);
    setProblem(undefined);
    setProbe(undefined);
  };

  /** A refused save or test; a save's refused fields are listed beside Save too. */
  const showFailure = (error: unknown, saving = false) => {
    const place = (placed: PlacedErrors) => {
      setErrors(placed);
      setSummarised(saving ? placed : noErrors);
    };
    if (isApiError(error, "conflict") && error.problem.existing_id) {
      // The only conflict on create is a name already taken: say it at the name.
      place({ byField: { name: [error.problem.detail] }, unplaced: [] });
      setProblem(undefined);
      setRejections((n) => n + 1);
    } else if (error instanceof ApiError && error.fieldErrors.length > 0) {
      // A list's item is named by what was sent: its lines may hold several, comma-separated.
      const sent = (key: string) => (key.startsWith("config.") ? draft.config[key.slice("config.".length)] : undefined);
      const placed = placeFieldErrors(error.fieldErrors, errorKeys, sent);
      place(placed);
      if (hitsAdvanced(Object.keys(placed.byField))) setAdvancedOpen(true);
      setProblem(undefined);
      setRejections((n) => n + 1);
    } else {
      place(noErrors);
      setProblem(error);
    }
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (missing.length > 0 || saving) return;
    setProblem(undefined);
    let id: string;
    let reached: boolean;
    try {
      if (saved && savedDraft) {
        const changes = mergePatch(provider, savedDraft, draft);
        if (Object.keys(changes).length > 0) {
          await patch.mutateAsync({ id: saved.sandbox.id, patch: changes, etag: saved.etag });
        }
        id = saved.sandbox.id;
        // A new url, secret or config may reach the provider differently: test it.
        reached = "url" in changes || "secret" in changes || "config" in changes;
      } else {
        id = (await create.mutateAsync(createBody(provider, draft))).id;
        reached = true;
      }
    } catch (error) {
      showFailure(error, true);
      return;
    }
    if (!reached) return onDone();
    // Save & test: the probe of the sandbox as saved, recorded as its health.
    setTestingSaved(true);
    const result = await probeSandbox({ id }).catch(() => undefined);
    setTestingSaved(false);
    void queryClient.invalidateQueries({ queryKey: sandboxKeys.all });
    if (result && !result.ok && onTestFailed) onTestFailed(id, result);
    else onDone();
  };

  const test = async () => {
    setProbe(undefined);
    setProblem(undefined);
    setTestProblem(undefined);
    try {
      const result =
        saved && savedDraft
          ? await probeSaved.mutateAsync({ id: saved.sandbox.id, patch: mergePatch(provider, savedDraft, draft) })
          : await probeDraft.mutateAsync(createBody(provider, draft));
      setErrors(noErrors);
      setProbe(result);
    } catch (error) {
      showFailure(error);
      // The fields say what is wrong; the button says why nothing was tested.
      if (error instanceof ApiError && error.fieldErrors.length > 0) {
        const n = error.fieldErrors.length;
        setTestProblem(`Not tested: ${n} field${n === 1 ? "" : "s"} to fix first (${error.fieldErrors.map((f) => f.field).join(", ")}).`);
      } else {
        setTestProblem(`Not tested: ${describeError(error)}`);
      }
    }
  };

  const stale = isApiError(problem, "precondition_failed");

  return (
    <form ref={formRef} className="form-grid" onSubmit={submit} noValidate aria-label={editing ? "Edit sandbox" : "Add sandbox"}>
      <ProviderPicker providers={providers} value={provider.name} onChange={pickProvider} locked={editing} />

      <Field id={fieldId("name")} label="Name" required error={errors.byField.name}>
        {(control) => (
          <input
            {...control}
            className="input"
            value={draft.name}
            maxLength={255}
            autoComplete="off"
            onChange={(e) => update({ name: e.target.value }, "name")}
          />
        )}
      </Field>
      <Field id={fieldId("description")} label="Description" error={errors.byField.description}>
        {(control) => (
          <input
            {...control}
            className="input"
            value={draft.description}
            maxLength={255}
            autoComplete="off"
            onChange={(e) => update({ description: e.target.value }, "description")}
          />
        )}
      </Field>
      {provider.url.accepted && (
        <Field id={fieldId("url")} label={provider.url.label} required={provider.url.required} error={errors.byField.url}>
          {(control) => (
            <input
              {...control}
              className="input mono"
              value={draft.url}
              autoComplete="off"
              spellCheck={false}
              onChange={(e) => update({ url: e.target.value }, "url")}
            />
          )}
        </Field>
      )}
      {provider.secret.accepted && (
        <SecretField
          id={fieldId("secret")}
          field={provider.secret}
          value={draft.secret}
          onChange={(secret) => update({ secret }, "secret")}
          hint={hint}
          cleared={draft.clearSecret}
          onClearedChange={(clearSecret) => update({ clearSecret, secret: "" }, "secret")}
          error={errors.byField.secret}
        />
      )}

      {[
        { title: schemaTitle(provider), fields: sections.own.filter((f) => !isAdvancedField(f.key)) },
        { title: "Common settings", fields: sections.common.filter((f) => !isAdvancedField(f.key)) },
      ].map(
        (section) =>
          section.fields.length > 0 && (
            <ConfigSection key={section.title} title={section.title}>
              <ConfigFields fields={section.fields} values={draft.config} errors={errors.byField} onChange={updateConfig} />
            </ConfigSection>
          ),
      )}
      {advanced.length > 0 && (
        <AdvancedFold open={advancedOpen} onOpenChange={setAdvancedOpen}>
          <ConfigFields fields={advanced} values={draft.config} errors={errors.byField} onChange={updateConfig} />
        </AdvancedFold>
      )}

      {errors.byField.provider && <ProblemMessage error={new Error(errors.byField.provider.join(" "))} />}
      {errors.unplaced.length > 0 && <ProblemMessage error={new Error(errors.unplaced.join(" "))} />}
      {problem != null && (
        <ProblemMessage
          error={problem}
          action={stale ? <span className="muted">Close and open the sandbox again to see its changes.</span> : undefined}
        />
      )}

      <DialogFooter>
        <TestConnection onTest={test} busy={probing} result={probe} problem={testProblem} disabled={saving} />
        <span className="spacer" />
        <ErrorSummary problems={problems} />
        <DialogCancel />
        <Button type="submit" variant="primary" busy={saving} disabled={saving || missing.length > 0}>
          {editing ? "Save changes" : "Add sandbox"}
        </Button>
        {testingSaved && (
          <p className="field__help dialog__footer-note" role="status">
            Saved. Testing the connection…
          </p>
        )}
        {missing.length > 0 && <p className="field__help dialog__footer-note">Required: {missing.join(", ")}.</p>}
      </DialogFooter>
    </form>
  );
}

/** The refused fields that have a control here, in the form's order, with what each is called. */
function summaryOf(provider: Provider, errors: PlacedErrors): FieldProblem[] {
  const labels: Record<string, string> = {
    name: "Name",
    description: "Description",
    url: provider.url.label,
    secret: provider.secret.label,
    ...fieldLabels(configFields(provider), "config"),
  };
  return Object.keys(labels).flatMap((key) => {
    const messages = errors.byField[key];
    return messages && messages.length > 0 ? [{ id: fieldId(key), label: labels[key]!, messages }] : [];
  });
}

/** A titled group of config fields, laid out as the form's own rows. */
function ConfigSection({ title, children }: { title: string; children: ReactNode }) {
  const id = useId();
  return (
    <div role="group" aria-labelledby={id} className="config-section">
      <h3 id={id} className="form-section-title">
        {title}
      </h3>
      {children}
    </div>
  );
}

/** The settings most sandboxes leave alone, folded away; its summary names it. */
function AdvancedFold({ open, onOpenChange, children }: { open: boolean; onOpenChange: (open: boolean) => void; children: ReactNode }) {
  const id = useId();
  return (
    <details className="config-section advanced-fold" open={open} aria-labelledby={id} onToggle={(e) => onOpenChange(e.currentTarget.open)}>
      <summary id={id} className="form-section-title advanced-fold__summary">
        Advanced settings
      </summary>
      {children}
    </details>
  );
}

function schemaTitle(provider: Provider): string {
  const title = (provider.config_schema as { title?: unknown }).title;
  return typeof title === "string" ? title : `${provider.title} settings`;
}
