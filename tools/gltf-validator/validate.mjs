// validate.mjs runs the Khronos glTF-Validator over GLB files so Go tests (and people)
// can prove a generated model is spec-compliant before it reaches a shopper's viewer.
//
// Usage: node validate.mjs FILE.glb [FILE.glb ...]
// Prints one JSON line per file:
//   {"file":..., "numErrors":N, "numWarnings":N, "numInfos":N,
//    "messages":[first errors], "warnings":[first warnings]}
// Exits 1 when any file has an error or cannot be read, 2 on bad usage.
import { readFile } from 'node:fs/promises';
import validator from 'gltf-validator';

const MAX_MESSAGES = 10;

function brief(issue) {
  return { code: issue.code, message: issue.message, pointer: issue.pointer ?? '' };
}

async function validateFile(file) {
  const bytes = new Uint8Array(await readFile(file));
  const report = await validator.validateBytes(bytes, {
    format: 'glb',
    maxIssues: 200,
    writeTimestamp: false,
  });
  const issues = report.issues ?? { numErrors: 0, numWarnings: 0, numInfos: 0, messages: [] };
  const messages = issues.messages ?? [];
  return {
    file,
    numErrors: issues.numErrors,
    numWarnings: issues.numWarnings,
    numInfos: issues.numInfos,
    messages: messages.filter((m) => m.severity === 0).slice(0, MAX_MESSAGES).map(brief),
    warnings: messages.filter((m) => m.severity === 1).slice(0, MAX_MESSAGES).map(brief),
    generator: report.info?.generator ?? '',
  };
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node validate.mjs FILE.glb [FILE.glb ...]');
  process.exit(2);
}

let failed = false;
for (const file of files) {
  try {
    const result = await validateFile(file);
    if (result.numErrors > 0) failed = true;
    console.log(JSON.stringify(result));
  } catch (err) {
    failed = true;
    console.log(JSON.stringify({
      file,
      numErrors: 1,
      numWarnings: 0,
      numInfos: 0,
      messages: [{ code: 'VALIDATOR_FAILED', message: String(err), pointer: '' }],
      warnings: [],
    }));
  }
}
process.exit(failed ? 1 : 0);
