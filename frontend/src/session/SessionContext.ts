import { createContext, useContext } from "react";
import type { Me } from "../api/types";

export interface Session {
  me: Me;
  isAdmin: boolean;
  signOut: () => void;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession is used outside a signed-in SessionProvider");
  return session;
}
