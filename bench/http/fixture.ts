/**
 * The data the HTTP load test serves: the nested-relations policy of the Polar reference
 * (§12.2), facts for users → workspaces → projects → tickets, the matching data bindings, and
 * the request mix (authorize, list, actions, authorize_query).
 */
import {
  RECURSIVE_POLICY_FILE,
  RECURSIVE_SCALES,
  recursiveFacts,
  recursiveRequests,
} from "./recursive.js";

export const POLICY_FILE = "examples/reference/12-2-nested-relations.polar";

export const BINDINGS = `facts:
  "has_role(User:_, String:_, Workspace:_)":
    query: SELECT user_id, role, workspace_id FROM workspace_members
  "has_relation(Project:_, String:workspace, Workspace:_)":
    query: SELECT id, workspace_id FROM projects
  "has_relation(Ticket:_, project, Project:_)":
    query: SELECT id, project_id FROM tickets WHERE project_id IS NOT NULL
sql_types:
  User: integer
  Workspace: integer
  Project: integer
  Ticket: bigint
`;

export interface Scale {
  readonly users: number;
  readonly workspaces: number;
  readonly projectsPerWorkspace: number;
  readonly ticketsPerProject: number;
}

export const SCALES = {
  /** ~12.6k facts: 2.1k roles, 500 projects, 10k tickets. */
  default: { users: 1000, workspaces: 50, projectsPerWorkspace: 10, ticketsPerProject: 20 },
  /** ~1k facts: 420 roles, 50 projects, 500 tickets. */
  small: { users: 200, workspaces: 10, projectsPerWorkspace: 5, ticketsPerProject: 10 },
} as const satisfies Record<string, Scale>;

export type ScaleName = keyof typeof SCALES;

/** The scale named by BENCH_SCALE (`default` or `small`). */
export function scaleFromEnv(): { name: ScaleName; scale: Scale } {
  const name = (process.env.BENCH_SCALE ?? "default") as ScaleName;
  if (!(name in SCALES)) throw new Error(`unknown BENCH_SCALE \`${name}\`; use default or small`);
  return { name, scale: SCALES[name] };
}

export function factCount(scale: Scale): number {
  return generateFacts(scale).length;
}

export interface WireFact {
  readonly predicate: string;
  readonly args: readonly { readonly type: string; readonly id: string }[];
}

const v = (type: string, id: number | string) => ({ type, id: String(id) });

/** Every user is a member of two workspaces and admin of every tenth. */
export function generateFacts(scale: Scale): WireFact[] {
  const facts: WireFact[] = [];
  for (let u = 0; u < scale.users; u++) {
    facts.push({
      predicate: "has_role",
      args: [v("User", u), v("String", "member"), v("Workspace", u % scale.workspaces)],
    });
    facts.push({
      predicate: "has_role",
      args: [v("User", u), v("String", "member"), v("Workspace", (u * 7 + 3) % scale.workspaces)],
    });
    if (u % 10 === 0) {
      facts.push({
        predicate: "has_role",
        args: [v("User", u), v("String", "admin"), v("Workspace", (u / 10) % scale.workspaces)],
      });
    }
  }
  let ticket = 0;
  for (let w = 0; w < scale.workspaces; w++) {
    for (let p = 0; p < scale.projectsPerWorkspace; p++) {
      const project = w * scale.projectsPerWorkspace + p;
      facts.push({
        predicate: "has_relation",
        args: [v("Project", project), v("String", "workspace"), v("Workspace", w)],
      });
      for (let t = 0; t < scale.ticketsPerProject; t++) {
        facts.push({
          predicate: "has_relation",
          args: [v("Ticket", ticket++), v("String", "project"), v("Project", project)],
        });
      }
    }
  }
  return facts;
}

export interface BenchRequest {
  readonly name: "authorize" | "list" | "actions" | "authorize_query";
  readonly path: string;
  readonly body: string;
}

/** `count` requests per endpoint over spread-out users and tickets, deterministic. */
export function requestMix(
  scale: Scale,
  count: number,
): Record<BenchRequest["name"], BenchRequest[]> {
  const tickets = scale.workspaces * scale.projectsPerWorkspace * scale.ticketsPerProject;
  const pick = (i: number) => ({
    user: String((i * 7919) % scale.users),
    ticket: String((i * 104729) % tickets),
  });
  const make = (name: BenchRequest["name"], body: (i: number) => object): BenchRequest[] =>
    Array.from({ length: count }, (_, i) => ({
      name,
      path: `/api/${name}`,
      body: JSON.stringify(body(i)),
    }));
  return {
    authorize: make("authorize", (i) => ({
      actor_type: "User",
      actor_id: pick(i).user,
      action: i % 2 ? "view" : "close",
      resource_type: "Ticket",
      resource_id: pick(i).ticket,
      context_facts: [],
    })),
    list: make("list", (i) => ({
      actor_type: "User",
      actor_id: pick(i).user,
      action: "view",
      resource_type: "Ticket",
      context_facts: [],
      page_size: 10000,
    })),
    actions: make("actions", (i) => ({
      actor_type: "User",
      actor_id: pick(i).user,
      resource_type: "Ticket",
      resource_id: pick(i).ticket,
      context_facts: [],
    })),
    authorize_query: make("authorize_query", (i) => ({
      query: {
        actor_type: "User",
        actor_id: pick(i).user,
        action: "view",
        resource_type: "Ticket",
        resource_id: pick(i).ticket,
        context_facts: [],
      },
      data_bindings: BINDINGS,
    })),
  };
}

// ---------------------------------------------------------------- datasets

/** What a load run serves: the policy, the facts and the requests. */
export interface Dataset {
  readonly policyFile: string;
  /** e.g. `nested, scale default: {...}`. */
  readonly description: string;
  facts(): WireFact[];
  requests(count: number): Record<BenchRequest["name"], BenchRequest[]>;
}

/**
 * The dataset named by BENCH_DATA (`nested`, the default, or `recursive`: bench/http/recursive.ts)
 * at the scale named by BENCH_SCALE (`default` or `small`).
 */
export function datasetFromEnv(): Dataset {
  const data = process.env.BENCH_DATA ?? "nested";
  const scaleName = process.env.BENCH_SCALE ?? "default";
  if (scaleName !== "default" && scaleName !== "small") {
    throw new Error(`unknown BENCH_SCALE \`${scaleName}\`; use default or small`);
  }
  if (data === "recursive") {
    const scale = RECURSIVE_SCALES[scaleName];
    return {
      policyFile: RECURSIVE_POLICY_FILE,
      description: `recursive folders, scale ${scaleName}: ${JSON.stringify(scale)}`,
      facts: () => recursiveFacts(scale),
      requests: (count) => recursiveRequests(scale, count),
    };
  }
  if (data !== "nested") throw new Error(`unknown BENCH_DATA \`${data}\`; use nested or recursive`);
  const scale = SCALES[scaleName];
  return {
    policyFile: POLICY_FILE,
    description: `nested relations, scale ${scaleName}: ${JSON.stringify(scale)}`,
    facts: () => generateFacts(scale),
    requests: (count) => requestMix(scale, count),
  };
}
