// Runs analyst SQL over a `worker export` file with DuckDB (the npm package,
// native bindings included: nothing is downloaded at run time).
//
//   node tools/duckdb/query.mjs events.parquet tools/duckdb/credits_per_day.sql
//   node tools/duckdb/query.mjs events.ndjson  tools/duckdb/upload_to_first_publish.sql
//   node tools/duckdb/query.mjs events.parquet -e "SELECT type, count(*) FROM ev GROUP BY 1"
//
// The file is exposed as the view `ev` with the export's columns, typed the
// same whatever the format (an NDJSON export is read with explicit column
// types, so `data` and `metadata` are JSON like Parquet's JSON columns rather
// than guessed structs). Each query prints one line: a JSON array of rows.
// Days and times are UTC.
import { readFileSync } from 'node:fs';
import { DuckDBInstance } from '@duckdb/node-api';

const [file, ...rest] = process.argv.slice(2);
if (!file || rest.length === 0) {
  console.error('usage: node query.mjs EXPORT_FILE (QUERY.sql | -e SQL)...');
  process.exit(2);
}
const queries = [];
for (let i = 0; i < rest.length; i++) {
  if (rest[i] === '-e') queries.push(rest[++i] ?? '');
  else queries.push(readFileSync(rest[i], 'utf8'));
}

const lit = (s) => `'${s.replaceAll("'", "''")}'`;
const source = /\.parquet$/i.test(file)
  ? `read_parquet(${lit(file)})`
  : `read_json(${lit(file)}, format = 'newline_delimited', columns = {
      position: 'BIGINT', xid: 'UBIGINT', streamId: 'VARCHAR', streamType: 'VARCHAR', version: 'BIGINT',
      type: 'VARCHAR', occurredAt: 'TIMESTAMPTZ', data: 'JSON', metadata: 'JSON'})`;

// Extensions the bindings do not carry would be fetched from the network; an
// analyst query never needs one, so refuse rather than download.
const db = await DuckDBInstance.create(':memory:', { autoinstall_known_extensions: 'false' });
const con = await db.connect();
await con.run(`SET TimeZone = 'UTC'`);
await con.run(`CREATE VIEW ev AS SELECT position, xid, streamId, streamType, version, type,
  occurredAt::TIMESTAMPTZ AS occurredAt, data::JSON AS data, metadata::JSON AS metadata FROM ${source}`);
for (const sql of queries) {
  const reader = await con.runAndReadAll(sql);
  console.log(JSON.stringify(reader.getRowObjectsJson()));
}
