/**
 * `polar-sql playground`: serves the playground's static files (docs/playground.md). All work
 * happens in the browser; the server only hands out the files of the built site
 * (src/cli/playground-server.ts: compressed, with ETags, hashed names kept for good), building
 * it first when it is missing and esbuild is installed (a checkout).
 */
import { stat } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join, resolve } from "node:path";
import { type CommandSpec, parseCommandArgs, reportUsage, UsageError, wantsHelp } from "./args.js";
import { type CliIo, EXIT_FAILED, EXIT_OK } from "./io.js";
import { buildPlayground, DEFAULT_SITE_DIR } from "./playground-build.js";
import { serveSiteFile } from "./playground-server.js";

const PLAYGROUND_HELP = `usage: polar-sql playground [options]

Serves the playground: a page to write a policy, add facts, ask questions, see
the SQL a question compiles to and run it on PGlite, all in the browser.

options:
  --port <n>     port to listen on (default 8090; 0 picks a free one)
  --host <addr>  address to bind (default 127.0.0.1)
  --dir <dir>    the built site to serve (default: the package's dist/playground)
  --build        build the site first (needs esbuild, a dev dependency)
  --help         show this help

The same site is written by \`npm run build:playground\` for any static host.

exit codes:
  0  stopped by SIGINT or SIGTERM
  1  the site is missing and cannot be built, or the port cannot be bound
  2  wrong arguments
`;

export const PLAYGROUND_SPEC = {
  name: "playground",
  usage: "polar-sql playground [--port 8090] [--host 127.0.0.1] [--dir <dir>] [--build]",
  options: {
    port: { type: "string", default: "8090" },
    host: { type: "string", default: "127.0.0.1" },
    dir: { type: "string" },
    build: { type: "boolean" },
  },
} as const satisfies CommandSpec;

interface PlaygroundCommandOptions {
  /** Resolves to stop the server (tests); SIGINT/SIGTERM otherwise. */
  readonly stop?: Promise<void>;
  readonly onListening?: (url: string) => void;
}

/**
 *   await runPlaygroundCommand(["--port", "0"], processIo, { stop, onListening: console.log });
 */
export async function runPlaygroundCommand(
  args: readonly string[],
  io: CliIo,
  options: PlaygroundCommandOptions = {},
): Promise<number> {
  if (wantsHelp(args)) {
    io.stdout(PLAYGROUND_HELP);
    return EXIT_OK;
  }
  let port: number;
  let host: string;
  let dir: string;
  let build: boolean;
  try {
    const { values, positionals } = parseCommandArgs(PLAYGROUND_SPEC, args);
    if (positionals.length > 0) throw new UsageError(`unexpected argument \`${positionals[0]}\``);
    port = Number(values.port);
    if (!Number.isInteger(port) || port < 0 || port > 65535) {
      throw new UsageError(`\`--port\` must be a port number, got \`${values.port}\``);
    }
    host = values.host ?? "127.0.0.1";
    dir = resolve(values.dir ?? DEFAULT_SITE_DIR);
    build = values.build === true;
  } catch (error) {
    if (error instanceof UsageError) return reportUsage(io, PLAYGROUND_SPEC, error);
    throw error;
  }

  const built = await isFile(join(dir, "index.html"));
  if (build || !built) {
    try {
      io.stderr(`building the playground into ${dir}\n`);
      await buildPlayground(dir);
    } catch (error) {
      io.stderr(
        `error: ${built ? "" : `no playground at ${dir}, and `}it cannot be built: ${(error as Error).message}\n`,
      );
      return EXIT_FAILED;
    }
  }

  const server = createServer((request, response) => {
    serveSiteFile(dir, request, response).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  try {
    await new Promise<void>((done, fail) => {
      server.once("error", fail);
      server.listen(port, host, () => done());
    });
  } catch (error) {
    io.stderr(`error: cannot listen on ${host}:${port}: ${(error as Error).message}\n`);
    return EXIT_FAILED;
  }
  const address = server.address() as AddressInfo;
  const shown = address.family === "IPv6" ? `[${address.address}]` : address.address;
  const url = `http://${shown}:${address.port}/`;
  io.stdout(`playground at ${url}\n`);
  options.onListening?.(url);
  await (options.stop ?? signalled());
  await close(server);
  return EXIT_OK;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}

function signalled(): Promise<void> {
  return new Promise((done) => {
    const stop = () => {
      process.off("SIGINT", stop);
      process.off("SIGTERM", stop);
      done();
    };
    process.on("SIGINT", stop);
    process.on("SIGTERM", stop);
  });
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((done) => server.close(() => done()));
}
