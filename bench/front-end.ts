/**
 * Front-end speed: parse + check of a generated 10,000-line policy (target < 500 ms) and of a
 * 100-line policy (target < 5 ms p50, warm).
 *
 *   npx tsx bench/front-end.ts
 */
import { checkPolicy } from "../src/check/check.js";
import { generatePolicy } from "./generate-policy.js";

function measure(text: string, iterations: number): { p50: number; p99: number; min: number } {
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = process.hrtime.bigint();
    const result = checkPolicy([{ name: "bench.polar", text }]);
    times.push(Number(process.hrtime.bigint() - start) / 1e6);
    if (!result.ok)
      throw new Error(`generated policy does not check: ${result.diagnostics[0]?.message}`);
  }
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
  return { p50: at(0.5), p99: at(0.99), min: times[0]! };
}

const large = generatePolicy(10_000);
const small = generatePolicy(100);
const lines = (text: string) => text.split("\n").length;

const cold = measure(large, 1);
const warmLarge = measure(large, 20);
for (let i = 0; i < 200; i++) checkPolicy([{ name: "bench.polar", text: small }]);
const warmSmall = measure(small, 2000);

const ms = (n: number) => `${n.toFixed(3)} ms`;
console.log(`node ${process.version}, ${new Date().toISOString()}`);
console.log(`large policy: ${lines(large)} lines, ${large.length} bytes`);
console.log(`  first run (cold):  ${ms(cold.p50)}`);
console.log(`  warm, 20 runs:     p50 ${ms(warmLarge.p50)}  p99 ${ms(warmLarge.p99)}`);
console.log(`small policy: ${lines(small)} lines`);
console.log(`  warm, 2000 runs:   p50 ${ms(warmSmall.p50)}  p99 ${ms(warmSmall.p99)}`);
