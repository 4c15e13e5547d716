/**
 * Listening on a socket with @hono/node-server, and a graceful stop: no new connections,
 * in-flight requests finish, idle keep-alive connections are closed.
 */
import type { Server, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { Hono } from "hono";

export interface ServerHandle {
  /** `http://host:port`, with the port actually bound (useful with port 0). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting, waits for in-flight requests (at most `graceMs`), then resolves. */
  close(): Promise<void>;
}

interface StartOptions {
  // biome-ignore lint/suspicious/noExplicitAny: any Hono app, whatever its variables
  readonly app: Hono<any>;
  /** 0 picks a free port. */
  readonly port: number;
  readonly host: string;
  /** How long `close()` waits for in-flight requests before cutting connections; default 10 s. */
  readonly graceMs?: number;
}

/**
 * Starts listening; resolves once the port is bound.
 *
 *   const server = await startServer({ app, port: 0, host: "127.0.0.1" });
 *   console.log(server.url); await server.close();
 */
export function startServer(options: StartOptions): Promise<ServerHandle> {
  const graceMs = options.graceMs ?? 10_000;
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch: options.app.fetch,
      port: options.port,
      hostname: options.host,
    }) as Server;
    const active = new Set<ServerResponse>();
    server.on("request", (_request, response: ServerResponse) => {
      active.add(response);
      response.once("close", () => active.delete(response));
    });
    server.once("error", reject);
    server.once("listening", () => {
      server.off("error", reject);
      const { port } = server.address() as AddressInfo;
      const host = options.host.includes(":") ? `[${options.host}]` : options.host;
      let closing: Promise<void> | undefined;
      resolve({
        url: `http://${host}:${port}`,
        port,
        close: () => {
          closing ??= stop(server, active, graceMs);
          return closing;
        },
      });
    });
  });
}

function stop(server: Server, active: Set<ServerResponse>, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    // In-flight requests end their connection instead of keeping it alive, and new requests
    // on already-open connections are told the same.
    const finish = (response: ServerResponse) => {
      if (!response.headersSent) response.setHeader("Connection", "close");
      response.once("finish", () => setImmediate(() => server.closeIdleConnections()));
    };
    for (const response of active) finish(response);
    server.on("request", (_request, response: ServerResponse) => finish(response));
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    force.unref();
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
