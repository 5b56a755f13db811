import { ArrowLeft, Plus } from "lucide-react";
import { useMemo, useState, type FormEvent } from "react";
import { Link, useNavigate } from "react-router-dom";
import { placeFieldErrors, type PlacedErrors } from "../../api/fieldErrors";
import { useQueryClient } from "@tanstack/react-query";
import { ApiError, isApiError } from "../../api/problem";
import { Button } from "../../ui/Button";
import { ConfirmDialog } from "../../ui/ConfirmDialog";
import { ErrorSummary, type FieldProblem } from "../../ui/ErrorSummary";
import { Field } from "../../ui/Field";
import { UnsavedChangesPrompt, useUnsavedChanges } from "../../ui/useUnsavedChanges";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useSession } from "../../session/SessionContext";
import { useProviders } from "../../api/listProviders";
import { AddToolDialog } from "./AddToolDialog";
import { AgentAvatar, defaultAgentColor } from "./AgentAvatar";
import { agentDraftOf, baselineAfter, identityKeys, rebaseDraft, type AgentDraft } from "./agentDraft";
import { useDeleteAgent } from "./api/deleteAgent";
import { agentQuery, type VersionedAgent } from "./api/getAgent";
import { useTools } from "./api/listTools";
import { McpConnectCard } from "./McpConnectCard";
import { RunAgentLink } from "./RunAgentLink";
import { SandboxToolCard } from "./SandboxToolCard";
import { defaultApprovalRule, defaultToolPolicies, isGuarded, sameBinding } from "./tools";
import { useSaveAgent } from "./useSaveAgent";

const noErrors: PlacedErrors = { byField: {}, unplaced: [] };

/** The identity fields in the order they show, with the ids an error summary links to. */
const identityFields = [
  { key: "name", id: "agent-name", label: "Name" },
  { key: "emoji", id: "agent-emoji", label: "Emoji" },
  { key: "description", id: "agent-description", label: "Description" },
  { key: "color", id: "agent-colour", label: "Colour" },
] as const;

function fieldProblems(errors: PlacedErrors): FieldProblem[] {
  return identityFields.flatMap(({ key, id, label }) => {
    const found = errors.byField[key];
    const messages = found === undefined ? [] : Array.isArray(found) ? found : [found];
    return messages.length > 0 ? [{ id, label, messages }] : [];
  });
}

export function AgentEditor({ saved }: { saved?: VersionedAgent }) {
  const navigate = useNavigate();
  const { isAdmin } = useSession();
  const providers = useProviders();
  const tools = useTools();
  const catalogue = tools.data ?? [];
  // The agent as last saved: set after a create, so a second Save edits rather than creates again.
  const [base, setBase] = useState(saved);
  const [draft, setDraft] = useState(() => agentDraftOf(saved));
  const [baseline, setBaseline] = useState(() => agentDraftOf(saved));
  const [errors, setErrors] = useState<PlacedErrors>(noErrors);
  const [problem, setProblem] = useState<unknown>();
  const [addingTool, setAddingTool] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [savedNote, setSavedNote] = useState(false);
  const [reloading, setReloading] = useState(false);
  const queryClient = useQueryClient();

  const { save: saveAgent, saving } = useSaveAgent();
  const remove = useDeleteAgent();

  const identityChanged = identityKeys.some((k) => draft[k].trim() !== baseline[k]);
  const bindingChanged = !sameBinding(draft.binding, baseline.binding);
  // What the person changed and has not saved: leaving asks first.
  const unsaved = identityChanged || bindingChanged;
  const dirty = base === undefined || unsaved;
  const { blocker, allowNextNavigation } = useUnsavedChanges(unsaved);
  const providerTitle = (name: string) => providers.data?.find((p) => p.name === name)?.title ?? name;

  const edit = (changes: Partial<AgentDraft>) => {
    setDraft((d) => ({ ...d, ...changes }));
    setSavedNote(false);
  };

  const save = async (e: FormEvent) => {
    e.preventDefault();
    if (saving || draft.name.trim() === "") return;
    setErrors(noErrors);
    setProblem(undefined);
    try {
      const fresh = await saveAgent({
        base,
        baseline,
        draft,
        onSaved: (step) => {
          setBase(step.saved);
          setBaseline((b) => baselineAfter(b, step));
        },
      });
      if (!saved) {
        allowNextNavigation();
        navigate(`/agents/${fresh.agent.id}`, { replace: true });
        return;
      }
      setBase(fresh);
      setBaseline(agentDraftOf(fresh));
      setDraft(agentDraftOf(fresh));
      setSavedNote(true);
    } catch (error) {
      if (error instanceof ApiError && error.fieldErrors.length > 0) {
        setErrors(placeFieldErrors(error.fieldErrors, [...identityKeys]));
      } else {
        setProblem(error);
      }
    }
  };

  // Someone changed the agent since it was read: load their changes under
  // the person's own edits, so that Save applies just those.
  const stale = isApiError(problem, "precondition_failed");
  const reload = async () => {
    if (!base) return;
    setReloading(true);
    try {
      const fresh = await queryClient.fetchQuery(agentQuery(base.agent.id));
      setDraft((d) => rebaseDraft(d, baseline, agentDraftOf(fresh)));
      setBase(fresh);
      setBaseline(agentDraftOf(fresh));
      setProblem(undefined);
    } catch (error) {
      setProblem(error);
    } finally {
      setReloading(false);
    }
  };

  const problems = useMemo(() => fieldProblems(errors), [errors]);
  const title = base ? base.agent.name : "New agent";
  return (
    <div className="page">
      <Link to="/agents" className="back-link">
        <ArrowLeft size={14} aria-hidden="true" /> Agents
      </Link>
      <header className="page-header">
        <h1>
          <AgentAvatar emoji={draft.emoji} name={draft.name} color={draft.color} size={28} />
          {title}
        </h1>
        {base?.agent.sandbox && <RunAgentLink agentId={base.agent.id} />}
      </header>

      <form className="editor" onSubmit={save} noValidate aria-label={base ? `Edit ${title}` : "New agent"}>
        <div className="editor__identity">
          <Field id="agent-name" label="Name" required error={errors.byField.name}>
            {(control) => (
              <input {...control} className="input" value={draft.name} maxLength={255} onChange={(e) => edit({ name: e.target.value })} />
            )}
          </Field>
          <Field id="agent-emoji" label="Emoji" error={errors.byField.emoji}>
            {(control) => (
              <input {...control} className="input" value={draft.emoji} placeholder="🤖" onChange={(e) => edit({ emoji: e.target.value })} />
            )}
          </Field>
          <div className="field--wide">
            <Field id="agent-description" label="Description" error={errors.byField.description}>
              {(control) => (
                <textarea
                  {...control}
                  className="input textarea"
                  rows={2}
                  maxLength={1000}
                  value={draft.description}
                  onChange={(e) => edit({ description: e.target.value })}
                />
              )}
            </Field>
          </div>
          <Field id="agent-colour" label="Colour" error={errors.byField.color} help={base ? undefined : "Leave empty for the default."}>
            {(control) => (
              <div className="editor__colour">
                <input
                  type="color"
                  aria-label="Pick a colour"
                  value={/^#[0-9a-f]{6}$/i.test(draft.color) ? draft.color : defaultAgentColor}
                  onChange={(e) => edit({ color: e.target.value })}
                />
                <input
                  {...control}
                  className="input mono"
                  value={draft.color}
                  placeholder={defaultAgentColor}
                  spellCheck={false}
                  onChange={(e) => edit({ color: e.target.value })}
                />
              </div>
            )}
          </Field>
        </div>

        <section className="editor__section" aria-labelledby="tools-heading">
          <div className="editor__section-header">
            <h2 id="tools-heading">Tools</h2>
            <span className="spacer" />
            <Button size="sm" onClick={() => setAddingTool(true)}>
              <Plus size={13} aria-hidden="true" /> Add tool
            </Button>
          </div>
          {tools.error != null && <ProblemMessage error={tools.error} />}
          {draft.binding ? (
            <SandboxToolCard
              binding={draft.binding}
              providerTitle={providerTitle(draft.binding.provider)}
              catalogue={catalogue}
              canSetRule={isAdmin}
              locked={!isAdmin && baseline.binding !== null && isGuarded(baseline.binding.approval)}
              onPolicyChange={(tool, policy) =>
                edit({ binding: { ...draft.binding!, tools: { ...draft.binding!.tools, [tool]: policy } } })
              }
              onApprovalChange={(approval) => edit({ binding: { ...draft.binding!, approval } })}
              onRemove={() => edit({ binding: null })}
            />
          ) : (
            <p className="muted">No tools yet. Add a sandbox to let this agent execute code.</p>
          )}
        </section>

        {base && <McpConnectCard agentId={base.agent.id} agentName={base.agent.name} bound={base.agent.sandbox != null} />}

        {errors.unplaced.length > 0 && <ProblemMessage error={new Error(errors.unplaced.join(" "))} />}
        {problem != null && (
          <ProblemMessage
            error={problem}
            action={
              stale && (
                <Button size="sm" busy={reloading} disabled={reloading} onClick={reload}>
                  Load their changes, keep mine
                </Button>
              )
            }
          />
        )}

        <div className="editor__actions">
          <ErrorSummary problems={problems} />
          <Button type="submit" variant="primary" busy={saving} disabled={saving || reloading || draft.name.trim() === "" || !dirty}>
            {base ? "Save changes" : "Create agent"}
          </Button>
          <span role="status" className={!savedNote && unsaved ? "editor__dirty" : "muted"}>
            {savedNote ? "Saved." : unsaved ? "Unsaved changes" : ""}
          </span>
          <span className="spacer" />
          {base && (
            <Button variant="ghost" onClick={() => setConfirmDelete(true)}>
              Delete agent
            </Button>
          )}
        </div>
      </form>

      <AddToolDialog
        open={addingTool}
        onOpenChange={setAddingTool}
        hasSandbox={draft.binding !== null}
        onAdd={(sandbox) =>
          edit({
            binding: {
              sandboxId: sandbox.id,
              name: sandbox.name,
              provider: sandbox.provider,
              url: sandbox.url,
              tools: defaultToolPolicies(catalogue),
              approval: defaultApprovalRule,
            },
          })
        }
      />
      <UnsavedChangesPrompt blocker={blocker} />
      {base && (
        <ConfirmDialog
          open={confirmDelete}
          onOpenChange={setConfirmDelete}
          title="Delete agent"
          confirmLabel="Delete agent"
          busy={remove.isPending}
          error={remove.error ?? undefined}
          onConfirm={() =>
            remove.mutate(base.agent.id, {
              onSuccess: () => {
                allowNextNavigation();
                navigate("/agents", { replace: true });
              },
            })
          }
        >
          <p>
            Delete <strong>{base.agent.name}</strong> with its sandbox binding and threads? This cannot be undone.
          </p>
        </ConfirmDialog>
      )}
    </div>
  );
}
