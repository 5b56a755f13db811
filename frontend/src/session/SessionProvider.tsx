import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useEffect, useMemo, useSyncExternalStore, type ReactNode } from "react";
import { Button } from "../ui/Button";
import { Loading } from "../ui/Loading";
import { ProblemMessage } from "../ui/ProblemMessage";
import { logout, meKey, useMe } from "./me";
import { SessionContext } from "./SessionContext";
import { SignIn } from "./SignIn";
import { takeSignInFailure } from "./signInFailure";
import { tokenStore } from "../shared/tokenStore";

/** Renders its children only for a token the API accepts; otherwise the sign-in screen. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const signedIn = useSyncExternalStore(tokenStore.subscribe, tokenStore.signedIn);
  const queryClient = useQueryClient();
  const me = useMe(signedIn);

  // Nothing read with one token may show under the next one.
  useEffect(() => {
    if (!signedIn) queryClient.clear();
  }, [signedIn, queryClient]);

  const signOut = useCallback(() => {
    void logout().finally(() => tokenStore.clear());
  }, []);
  const session = useMemo(
    () => (me.data ? { me: me.data, isAdmin: me.data.role === "admin", signOut } : null),
    [me.data, signOut],
  );

  if (!signedIn) {
    return (
      <SignIn
        notice={takeSignInFailure() ?? tokenStore.endedBecause() ?? undefined}
        onSignedIn={(m) => queryClient.setQueryData(meKey, m)}
      />
    );
  }
  if (me.isPending) return <Loading label="Signing in…" />;
  if (!session) {
    return (
      <main className="signin">
        <div className="signin__card card">
          <ProblemMessage error={me.error} action={<Button onClick={() => me.refetch()}>Retry</Button>} />
          <Button variant="ghost" onClick={signOut}>
            Sign out
          </Button>
        </div>
      </main>
    );
  }
  return <SessionContext.Provider value={session}>{children}</SessionContext.Provider>;
}
