/**
 * `polar-sql authorize | list | actions`: questions to a running server.
 */
import { formatId, parseValue, type TypedValue } from "../client/values.js";
import { UsageError } from "./args.js";
import type { CliIo } from "./io.js";
import {
  CLIENT_EXIT_CODES,
  CONNECTION_HELP,
  CONNECTION_OPTIONS,
  type RemoteSpec,
  runRemote,
} from "./remote.js";

const JSON_OPTION = { json: { type: "boolean" }, ...CONNECTION_OPTIONS } as const;

const VALUES_HELP = `Values are written as Oso's CLI writes them: Type:id (User:bob,
Repository:"my repo"), a bare word for a String; see \`polar-sql facts get --help\`.`;

export const AUTHORIZE_SPEC: RemoteSpec<typeof JSON_OPTION> = {
  name: "authorize",
  usage: "polar-sql authorize <actor> <action> <resource> [--json]",
  positionals: ["<actor>", "<action>", "<resource>"],
  options: JSON_OPTION,
  help: `usage: polar-sql authorize <actor> <action> <resource> [--json]

Asks a running server whether the actor may do the action on the resource and
prints \`allowed\` or \`denied\` (with --json: {"allowed": true|false}).

  polar-sql authorize User:alice delete Repository:1

${VALUES_HELP}

${CONNECTION_HELP}

${CLIENT_EXIT_CODES} (denied is an answer: exit 0)
`,
};

export const LIST_SPEC: RemoteSpec<typeof JSON_OPTION> = {
  name: "list",
  usage: "polar-sql list <actor> <action> <Type> [--json]",
  positionals: ["<actor>", "<action>", "<Type>"],
  options: JSON_OPTION,
  help: `usage: polar-sql list <actor> <action> <Type> [--json]

Prints the ids of every resource of the type on which the actor may do the
action, one per line, quoted like ids in values when they are not plainly safe
(with --json: a JSON array). \`*\` means every resource of the type. All pages
of the answer are read.

  polar-sql list User:bob read Repository

${VALUES_HELP}

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

export const ACTIONS_SPEC: RemoteSpec<typeof JSON_OPTION> = {
  name: "actions",
  usage: "polar-sql actions <actor> <resource> [--json]",
  positionals: ["<actor>", "<resource>"],
  options: JSON_OPTION,
  help: `usage: polar-sql actions <actor> <resource> [--json]

Prints the actions the actor may do on the resource, one per line, sorted
(with --json: a JSON array). \`*\` means every action.

  polar-sql actions User:alice Repository:1

${VALUES_HELP}

${CONNECTION_HELP}

${CLIENT_EXIT_CODES}
`,
};

/** `polar-sql authorize User:alice delete Repository:1` */
export function runAuthorizeCommand(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(AUTHORIZE_SPEC, args, io, async ({ client, values, positionals }) => {
    const [actorText, action, resourceText] = positionals as [string, string, string];
    const allowed = await client.authorize(
      typedArg("<actor>", actorText),
      action,
      typedArg("<resource>", resourceText),
    );
    io.stdout(
      values.json ? `${JSON.stringify({ allowed })}\n` : allowed ? "allowed\n" : "denied\n",
    );
    return undefined;
  });
}

/** `polar-sql list User:bob read Repository` */
export function runListCommand(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(LIST_SPEC, args, io, async ({ client, values, positionals }) => {
    const [actorText, action, type] = positionals as [string, string, string];
    const ids = await client.list(typedArg("<actor>", actorText), action, type);
    printList(io, ids, values.json === true);
    return undefined;
  });
}

/** `polar-sql actions User:alice Repository:1` */
export function runActionsCommand(args: readonly string[], io: CliIo): Promise<number> {
  return runRemote(ACTIONS_SPEC, args, io, async ({ client, values, positionals }) => {
    const [actorText, resourceText] = positionals as [string, string];
    const actions = await client.actions(
      typedArg("<actor>", actorText),
      typedArg("<resource>", resourceText),
    );
    printList(io, actions, values.json === true);
    return undefined;
  });
}

/** A `Type:id` argument, or a usage error naming it (`<actor>`, `value 2`). */
export function typedArg(label: string, text: string): TypedValue {
  const parsed = parseValue(text);
  if (!parsed.ok) throw new UsageError(`${label}: ${parsed.message}`);
  return parsed.value;
}

/** One item per line, quoted like ids when not plainly safe (`*`, the wildcard, stays bare). */
function printList(io: CliIo, items: readonly string[], json: boolean): void {
  if (json) io.stdout(`${JSON.stringify(items)}\n`);
  else io.stdout(items.map((item) => `${item === "*" ? item : formatId(item)}\n`).join(""));
}
