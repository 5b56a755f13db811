import { randomBytes } from "node:crypto";
import type { TestProject } from "vitest/node";
import { buildServer, buildSpa, startServer } from "./server";

declare module "vitest" {
  export interface ProvidedContext {
    baseUrl: string;
    adminToken: string;
    /** An admin of a workspace no other scenario uses: what it lists is only its own. */
    quietAdminToken: string;
    /** An admin of a workspace only the usage scenario meters: its top agents are its own. */
    meteredAdminToken: string;
    /** An admin of a workspace whose instances quota is 5: only the quota banner scenario runs there. */
    quotaAdminToken: string;
    /** The server binary, for a scenario that needs a server of its own (single sign-on). */
    binary: string;
  }
}

/** One build and one server for the whole browser suite; each scenario names its own data. */
export default async function setup(project: TestProject) {
  buildSpa();
  const { binary, cleanup } = buildServer();
  const server = await startServer(binary, `aux_${randomBytes(32).toString("base64url")}`);
  project.provide("baseUrl", server.url);
  project.provide("binary", binary);
  project.provide("adminToken", server.token);
  project.provide("quietAdminToken", server.createToken("quiet"));
  project.provide("meteredAdminToken", server.createToken("metered"));
  project.provide("quotaAdminToken", server.createToken("quota"));
  server.setQuotas("quota", "--instances", "5");
  return async () => {
    await server.stop();
    cleanup();
  };
}
