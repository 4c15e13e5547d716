import { checkPolicy } from "../../src/check/check.js";
import { runTests } from "../../src/evaluate/test-runner.js";
import { storeBindings } from "../../src/store/bindings.js";
import { cachedPlan } from "../../src/plan/plan.js";
const policy = `actor User {}
resource Doc { roles = ["viewer"]; permissions = ["read"]; "read" if "viewer"; }
`;
const n = Number(process.argv[2]);
const kind = process.argv[3];
const rules = kind === "chain" ? Array.from({length:n},(_, i)=>`f${i}(d: Doc) if f${i+1}(d);`).join("\n") + `\nf${n}(d: Doc) if has_relation(d, "x", d);\nhas_role(u: User, "viewer", d: Doc) if f0(d) and u = u;`
 : Array.from({length:n},(_, i)=>`has_role(u: User, "viewer", d: Doc) if has_relation(d, "r${i}", u);`).join("\n");
let s = performance.now();
const r = checkPolicy([{ name: "p", text: policy + rules }]);
console.log("check", Math.round(performance.now()-s), r.ok);
if (!r.ok) { console.log(r.diagnostics.slice(0,3)); process.exit(); }
s = performance.now(); runTests(r.program, {}); console.log("tests", Math.round(performance.now()-s));
const b = storeBindings([{ predicate: "has_relation", types: ["Doc","String","User"] }, { predicate: "has_relation", types: ["Doc","String","Doc"] }] as never);
s = performance.now();
cachedPlan(r.program, b, { calls: [{ name: "allow", args: ["actor","action","resource"] }], variables: new Map([["actor", {kind:"param", type:"User", many:false}],["action", {kind:"literal", value:{type:"String", id:"read"}}],["resource", {kind:"param", type:"Doc", many:false}]]) as never, outputs: [], outer: null });
console.log("plan", Math.round(performance.now()-s));
if (process.env.SHOW) {
  const p = cachedPlan(r.program, b, { calls: [{ name: "allow", args: ["actor","action","resource"] }], variables: new Map([["actor", {kind:"param", type:"User", many:false}],["action", {kind:"literal", value:{type:"String", id:"read"}}],["resource", {kind:"param", type:"Doc", many:false}]]) as never, outputs: [], outer: null });
  console.log(JSON.stringify(p).slice(0, 3000));
}
