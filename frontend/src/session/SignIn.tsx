import { useEffect, useState, type FormEvent } from "react";
import { api, unwrap } from "../api/client";
import { describeError, isApiError } from "../api/problem";
import type { components } from "../api/schema.gen";
import type { Me } from "../api/types";
import { Button } from "../ui/Button";
import { CheckboxField } from "../ui/CheckboxField";
import { Field } from "../ui/Field";
import { PasswordInput } from "../ui/PasswordInput";
import { fetchMe } from "./me";
import { tokenStore } from "../shared/tokenStore";

type AuthConfig = components["schemas"]["AuthConfig"];

interface SignInProps {
  notice?: string;
  onSignedIn: (me: Me) => void;
}

export function SignIn({ notice, onSignedIn }: SignInProps) {
  const [token, setToken] = useState("");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [remember, setRemember] = useState(false);
  // Whether people may sign in with the identity provider; no answer leaves the token form alone.
  // (Asked here, not through the query cache, which the sign-in screen empties as it shows.)
  const [auth, setAuth] = useState<AuthConfig>();
  useEffect(() => {
    let live = true;
    unwrap(api.GET("/auth/config")).then(
      (config) => live && setAuth(config),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, []);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const value = token.trim();
    if (!value) return;
    setBusy(true);
    setError(undefined);
    try {
      const me = await fetchMe(value);
      onSignedIn(me);
      tokenStore.set(value, remember);
    } catch (err) {
      setError(isApiError(err, "unauthorized") ? "This token was not accepted. Check it and try again." : describeError(err));
      setBusy(false);
    }
  };

  return (
    <main className="signin">
      <form className="signin__card card" onSubmit={submit} noValidate>
        <div className="signin__brand" aria-hidden="true">
          ▲
        </div>
        <h1>Sign in to Auxilia sandboxes</h1>
        {notice && (
          <p className="notice" role="status">
            {notice}
          </p>
        )}
        {auth?.oidc && (
          <>
            <a className="btn btn--primary btn--md signin__sso" href={auth.login_url}>
              Sign in with {auth.provider_name}
            </a>
            <p className="signin__or">or, for a token</p>
          </>
        )}
        <Field
          label="API token"
          error={error}
          help="Paste an API token. The server prints the first admin token in its start-up banner; otherwise ask a workspace admin for one."
        >
          {(control) => (
            <PasswordInput
              {...control}
              subject="token"
              autoFocus
              value={token}
              onChange={(e) => setToken(e.target.value)}
              placeholder="aux_…"
            />
          )}
        </Field>
        <CheckboxField
          label="Keep me signed in on this device"
          help={
            remember
              ? "The token is kept in this browser, for every tab, until you sign out. Leave this off on a shared computer."
              : "Off: the token is kept for this browser tab only."
          }
          checked={remember}
          onChange={setRemember}
        />
        <Button type="submit" variant="primary" busy={busy} disabled={busy || token.trim() === ""}>
          Sign in
        </Button>
      </form>
    </main>
  );
}
