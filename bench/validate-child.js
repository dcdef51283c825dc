// Read and validate one export in this process, then report records/s and this process's peak RSS.
// Usage: node bench/validate-child.js <file> [hash-config-file] [--read-only]
import { readFileSync } from 'node:fs';
import { readSources, parseHashConfig } from '../dist/sources/index.js';
import { validateSources } from '../dist/records/validate.js';

function peakRssMb() {
  const status = readFileSync('/proc/self/status', 'utf8');
  const m = /VmHWM:\s+(\d+) kB/.exec(status);
  // VmHWM is the kernel's high-water mark of resident memory; maxRSS is the same figure from getrusage.
  const kb = m ? Number(m[1]) : process.resourceUsage().maxRSS;
  return kb / 1024;
}

async function main(args) {
  const readOnly = args.includes('--read-only');
  const [file, hashConfigFile] = args.filter((a) => !a.startsWith('--'));
  const hashConfig = hashConfigFile ? parseHashConfig(readFileSync(hashConfigFile, 'utf8')) : undefined;
  const started = performance.now();
  let records = 0;
  let result;
  if (readOnly) {
    let problems = 0;
    for await (const item of readSources([file], { hashConfig })) {
      if (item.kind === 'record') records++;
      else problems++;
    }
    result = { problems };
  } else {
    const report = await validateSources([file], { hashConfig, signerKey: hashConfig?.signerKey, maxProblems: 100 });
    records = report.summary.records;
    result = {
      valid: report.summary.valid,
      invalid: report.summary.invalid,
      errors: report.summary.errors,
      warnings: report.summary.warnings,
      firstProblems: report.problems.slice(0, 3).map((p) => `${p.rule}: ${p.message}`),
    };
  }
  const ms = performance.now() - started;
  const { user, system } = process.cpuUsage();
  // CPU time as well as wall time: on a busy machine the first stays put while the second stretches.
  return { records, ms, rps: (records * 1000) / ms, cpuMs: (user + system) / 1000, peakRssMb: peakRssMb(), ...result };
}

main(process.argv.slice(2)).then(
  (out) => process.stdout.write(JSON.stringify(out) + '\n'),
  (err) => {
    process.stderr.write(`validate-child: ${err.message}\n`);
    process.exitCode = 1;
  },
);
