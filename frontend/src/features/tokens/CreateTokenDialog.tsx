import { AlertTriangle } from "lucide-react";
import { useState, type FormEvent } from "react";
import { ApiError } from "../../api/problem";
import type { CreatedToken, TokenCreate } from "../../api/types";
import { Button } from "../../ui/Button";
import { CopyField } from "../../ui/CopyField";
import { Dialog, DialogFooter } from "../../ui/Dialog";
import { Field } from "../../ui/Field";
import { ProblemMessage } from "../../ui/ProblemMessage";
import { useCreateToken } from "./api/createToken";

type Role = NonNullable<TokenCreate["role"]>;

interface CreateTokenDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
}

/** Create a token, then show its value once with a way to copy it. */
export function CreateTokenDialog({ open, onOpenChange }: CreateTokenDialogProps) {
  const [name, setName] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [created, setCreated] = useState<CreatedToken>();
  const create = useCreateToken();

  const close = (next: boolean) => {
    if (!next) {
      setName("");
      setRole("member");
      setCreated(undefined);
      create.reset();
    }
    onOpenChange(next);
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (name.trim() === "" || create.isPending) return;
    create.mutate({ name: name.trim(), role }, { onSuccess: setCreated });
  };

  const fieldError = (field: string) =>
    create.error instanceof ApiError ? create.error.fieldErrors.filter((f) => f.field === field).map((f) => f.message) : [];
  const otherError =
    create.error && !(create.error instanceof ApiError && create.error.fieldErrors.length > 0) ? create.error : undefined;

  const createdView = created && (
    <>
      <div className="notice token-warning" role="note">
        <AlertTriangle size={16} aria-hidden="true" />
        <p>Copy this token now. It is shown only once: the server keeps only a hash of it.</p>
      </div>
      <Field label={`Token "${created.name}" (${created.role})`}>
        {({ id }) => <CopyField id={id} value={created.token} label="Token value" />}
      </Field>
      <DialogFooter>
        <Button variant="primary" onClick={() => close(false)}>
          Done
        </Button>
      </DialogFooter>
    </>
  );

  return (
    <Dialog open={open} onOpenChange={close} title={created ? "Token created" : "Create API token"} size="sm">
      {createdView || (
      <form className="form-grid" onSubmit={submit} noValidate>
        <Field label="Name" required error={fieldError("name")} help="Who or what uses it, such as ci or alice.">
          {(control) => (
            <input {...control} className="input" value={name} maxLength={255} onChange={(e) => setName(e.target.value)} />
          )}
        </Field>
        <Field
          label="Role"
          error={fieldError("role")}
          help="Admins manage sandboxes and tokens; members build and run agents."
        >
          {(control) => (
            <select {...control} className="input" value={role} onChange={(e) => setRole(e.target.value as Role)}>
              <option value="member">member</option>
              <option value="admin">admin</option>
            </select>
          )}
        </Field>
        {otherError && <ProblemMessage error={otherError} />}
        <DialogFooter>
          <Button onClick={() => close(false)}>Cancel</Button>
          <Button type="submit" variant="primary" busy={create.isPending} disabled={create.isPending || name.trim() === ""}>
            Create token
          </Button>
        </DialogFooter>
      </form>
      )}
    </Dialog>
  );
}
