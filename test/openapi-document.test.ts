/**
 * The OpenAPI document (`GET /api/openapi.json`) against the structure OpenAPI 3.1 requires:
 * a unique `operationId` per operation, responses keyed by status with descriptions, parameters
 * with a location, security requirements naming declared schemes, `$ref`s that resolve, and
 * JSON Schemas whose types, enums and required properties are well formed. Closed sets are
 * enums: `dialect`, the local `mode`, `fail_fast`, a policy refusal's `error_type`.
 */
import { describe, expect, it } from "vitest";
import { createApp } from "../src/http/app.js";
import { silentLogger } from "../src/http/logger.js";
import { operationId } from "../src/http/openapi.js";
import { fakeService } from "./http-fake-service.js";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
const TYPES = new Set(["null", "boolean", "object", "array", "number", "string", "integer"]);

const isObject = (value: Json | undefined): value is JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Every problem of a JSON Schema (OpenAPI 3.1 uses JSON Schema 2020-12), with its path. */
function schemaProblems(schema: Json | undefined, where: string, refs: Set<string>): string[] {
  if (typeof schema === "boolean") return [];
  if (!isObject(schema)) return [`${where}: a schema must be an object`];
  const problems: string[] = [];
  const ref = schema.$ref;
  if (ref !== undefined && !(typeof ref === "string" && refs.has(ref))) {
    problems.push(`${where}: $ref ${JSON.stringify(ref)} does not resolve`);
  }
  const types = schema.type === undefined ? [] : [schema.type].flat();
  for (const type of types) {
    if (typeof type !== "string" || !TYPES.has(type)) problems.push(`${where}: type ${type}`);
  }
  if (schema.enum !== undefined) {
    const values = schema.enum;
    if (!Array.isArray(values) || values.length === 0) problems.push(`${where}: empty enum`);
    else if (new Set(values.map((v) => JSON.stringify(v))).size !== values.length) {
      problems.push(`${where}: repeated enum values`);
    } else if (types.includes("string") && values.some((v) => typeof v !== "string")) {
      problems.push(`${where}: a string enum with other values`);
    }
  }
  if (schema.required !== undefined) {
    const names = isObject(schema.properties) ? Object.keys(schema.properties) : [];
    const required = schema.required;
    if (!Array.isArray(required) || required.some((name) => !names.includes(name as string))) {
      problems.push(`${where}: required names a property that is not declared`);
    }
  }
  const children: [string, Json | undefined][] = [
    ...Object.entries(isObject(schema.properties) ? schema.properties : {}).map(
      ([name, child]): [string, Json] => [`properties.${name}`, child],
    ),
    ["items", schema.items],
    ["additionalProperties", schema.additionalProperties],
    ...(["anyOf", "oneOf", "allOf"] as const).flatMap((key) =>
      (Array.isArray(schema[key]) ? (schema[key] as Json[]) : []).map(
        (child, i): [string, Json] => [`${key}.${i}`, child],
      ),
    ),
  ];
  for (const [name, child] of children) {
    if (child !== undefined) problems.push(...schemaProblems(child, `${where}.${name}`, refs));
  }
  return problems;
}

/** Every structural problem of an OpenAPI 3.1 document. */
function documentProblems(doc: JsonObject): string[] {
  const problems: string[] = [];
  if (typeof doc.openapi !== "string" || !/^3\.1\.\d+$/.test(doc.openapi)) {
    problems.push("openapi must be 3.1.x");
  }
  const info = doc.info;
  if (!isObject(info) || typeof info.title !== "string" || typeof info.version !== "string") {
    problems.push("info needs a title and a version");
  }
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const refs = new Set(Object.keys(schemas).map((name) => `#/components/schemas/${name}`));
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  for (const [name, schema] of Object.entries(schemas)) {
    problems.push(...schemaProblems(schema, `components.schemas.${name}`, refs));
  }
  const operationIds = new Set<string>();
  for (const [path, item] of Object.entries(isObject(doc.paths) ? doc.paths : {})) {
    if (!path.startsWith("/")) problems.push(`${path}: paths start with /`);
    for (const [method, operation] of Object.entries(isObject(item) ? item : {})) {
      const at = `${method.toUpperCase()} ${path}`;
      if (!METHODS.has(method) || !isObject(operation)) {
        problems.push(`${at}: not an operation`);
        continue;
      }
      const id = operation.operationId;
      if (typeof id !== "string" || !/^[A-Za-z][A-Za-z0-9]*$/.test(id)) {
        problems.push(`${at}: operationId ${JSON.stringify(id)}`);
      } else if (operationIds.has(id)) problems.push(`${at}: operationId ${id} is repeated`);
      else operationIds.add(id);
      const responses = isObject(operation.responses) ? Object.entries(operation.responses) : [];
      if (responses.length === 0) problems.push(`${at}: no responses`);
      for (const [status, response] of responses) {
        if (!/^([1-5][0-9X]{2}|default)$/.test(status)) problems.push(`${at}: status ${status}`);
        if (!isObject(response) || typeof response.description !== "string") {
          problems.push(`${at} ${status}: a response needs a description`);
          continue;
        }
        for (const [type, media] of Object.entries(
          isObject(response.content) ? response.content : {},
        )) {
          const schema = isObject(media) ? media.schema : undefined;
          problems.push(...schemaProblems(schema, `${at} ${status} ${type}`, refs));
        }
      }
      const parameters = Array.isArray(operation.parameters) ? operation.parameters : [];
      for (const parameter of parameters) {
        const ok =
          isObject(parameter) &&
          typeof parameter.name === "string" &&
          ["query", "header", "path", "cookie"].includes(parameter.in as string) &&
          (parameter.in !== "path" || parameter.required === true);
        if (!ok) problems.push(`${at}: parameter ${JSON.stringify(parameter)}`);
        else problems.push(...schemaProblems(parameter.schema, `${at} ${parameter.name}`, refs));
      }
      const body = operation.requestBody;
      if (body !== undefined) {
        const content = isObject(body) && isObject(body.content) ? body.content : {};
        for (const [type, media] of Object.entries(content)) {
          const schema = isObject(media) ? media.schema : undefined;
          problems.push(...schemaProblems(schema, `${at} body ${type}`, refs));
        }
      }
      for (const requirement of Array.isArray(operation.security) ? operation.security : []) {
        for (const scheme of Object.keys(isObject(requirement) ? requirement : {})) {
          if (!(scheme in schemes)) problems.push(`${at}: security scheme ${scheme} is undeclared`);
        }
      }
    }
  }
  return problems;
}

async function servedDocument(): Promise<JsonObject> {
  const app = createApp({ service: fakeService(), apiKeys: ["k"], logger: silentLogger });
  const response = await app.request("/api/openapi.json");
  expect(response.status).toBe(200);
  return (await response.json()) as JsonObject;
}

type Operation = {
  operationId: string;
  parameters?: { name: string; schema: JsonObject }[];
  requestBody: { content: { "application/json": { schema: JsonObject } } };
  responses: Record<string, { content: { "application/json": { schema: JsonObject } } }>;
};

describe("the OpenAPI document", () => {
  it("has the structure OpenAPI 3.1 requires", async () => {
    const doc = await servedDocument();
    expect(documentProblems(doc)).toEqual([]);
  });

  it("the structural check finds what is wrong", async () => {
    const doc = await servedDocument();
    const broken = structuredClone(doc) as {
      paths: Record<string, Record<string, JsonObject>>;
    } & JsonObject;
    const authorize = broken.paths["/api/authorize"]!.post!;
    delete authorize.operationId;
    broken.paths["/api/list"]!.post!.operationId = "getPolicy";
    broken.paths["/api/explain"]!.post!.security = [{ nope: [] }];
    (broken.paths["/api/actions"]!.post!.responses as JsonObject)["200"] = {};
    const problems = documentProblems(broken);
    expect(problems).toEqual(
      expect.arrayContaining([
        "POST /api/authorize: operationId undefined",
        "POST /api/list: operationId getPolicy is repeated",
        "POST /api/explain: security scheme nope is undeclared",
        "POST /api/actions 200: a response needs a description",
      ]),
    );
    const components = doc.components as { schemas: JsonObject };
    const withBadSchema = {
      ...doc,
      components: { ...components, schemas: { ...components.schemas, A: { type: "strin" } } },
    };
    expect(documentProblems(withBadSchema)).toEqual(["components.schemas.A: type strin"]);
  });

  it("names each operation after its method and path", async () => {
    expect(operationId("POST", "/api/authorize_query")).toBe("postAuthorizeQuery");
    expect(operationId("GET", "/api/openapi.json")).toBe("getOpenapiJson");
    expect(operationId("DELETE", "/api/facts")).toBe("deleteFacts");
    expect(operationId("GET", "/health")).toBe("getHealth");
    const doc = (await servedDocument()) as unknown as {
      paths: Record<string, Record<string, Operation>>;
    };
    expect(doc.paths["/api/policy"]!.get!.operationId).toBe("getPolicy");
    expect(doc.paths["/api/policy"]!.post!.operationId).toBe("postPolicy");
  });

  it("lists closed sets as enums", async () => {
    const doc = (await servedDocument()) as unknown as {
      paths: Record<string, Record<string, Operation>>;
    };
    for (const path of [
      "/api/authorize_query",
      "/api/actions_query",
      "/api/list_query",
      "/api/evaluate_query_local",
    ]) {
      const body = doc.paths[path]!.post!.requestBody.content["application/json"].schema;
      expect((body.properties as JsonObject).dialect, path).toEqual({
        type: "string",
        enum: ["postgres", "mysql", "sqlite"],
      });
    }
    const local =
      doc.paths["/api/evaluate_query_local"]!.post!.requestBody.content["application/json"].schema;
    const modes = JSON.stringify((local.properties as JsonObject).mode);
    expect(modes).toContain('"enum":["select"]');
    expect(modes).toContain('"enum":["filter"]');
    const failFast = doc.paths["/api/policy"]!.post!.parameters!.find(
      (p) => p.name === "fail_fast",
    );
    expect(failFast!.schema).toEqual({ type: "string", enum: ["true", "false"] });
    const refused =
      doc.paths["/api/policy"]!.post!.responses["400"]!.content["application/json"].schema;
    expect(JSON.stringify(refused)).toContain('"enum":["Validation","TestsFailed"]');
  });
});
