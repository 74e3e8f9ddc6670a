#!/usr/bin/env node
// Follows a room: prints its controls, then every commit, every live drag and
// who comes and goes, until Ctrl+C. Survives reconnects and schema changes.
//
//   node clients/js/examples/follow.mjs ws://localhost:8080/rooms/demo [--name NAME] [--token TOKEN] [--drags]
//
// A token may also come from the TANDEM_TOKEN environment variable.

import { connect } from "../tandem.js";

const args = process.argv.slice(2);
const option = (flag) => {
  const i = args.indexOf(flag);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const name = option("--name") ?? "follower";
const token = option("--token") ?? process.env.TANDEM_TOKEN ?? null;
const drags = args.includes("--drags") && args.splice(args.indexOf("--drags"), 1);
const url = args[0];
if (!url || args.length > 1) {
  console.error("usage: follow.mjs ws://HOST:PORT/rooms/ROOM [--name NAME] [--token TOKEN] [--drags]");
  process.exit(2);
}

const time = () => new Date().toISOString().slice(11, 19);
const show = (value) => (typeof value === "object" ? JSON.stringify(value) : String(value));
const list = (room) => {
  for (const c of room.controls) console.log(`  ${c.id.padEnd(12)} ${c.type.padEnd(7)} ${show(c.value)}`);
};

let room;
try {
  room = await connect(url, { name, token });
} catch (error) {
  console.error(`${url}: ${error.message}`);
  process.exit(1);
}
console.log(`${room.title} (${room.id}), revision ${room.rev}, as ${name} (${room.role ?? "editor"}):`);
list(room);
console.log(`people: ${room.peers.map((p) => p.name).join(", ")}`);

room.onChange((c) => console.log(`${time()} ${c.control} = ${show(c.value)}  (${c.name ?? c.by ?? "?"}, rev ${c.rev})`));
room.on("peers", ({ joined, left }) => {
  for (const p of joined) console.log(`${time()} + ${p.name} joined`);
  for (const p of left) console.log(`${time()} - ${p.name ?? p.client} left`);
});
if (drags) room.on("gesture", (g) => console.log(`${time()}   ${g.name ?? g.by} ${g.phase} ${g.control} ${show(g.value)}`));
room.on("state", (s) => s !== "open" && console.log(`${time()} (${s})`));
room.on("schema", ({ added, removed }) => {
  console.log(`${time()} the room changed: +[${added}] -[${removed}]`);
  list(room);
});
room.on("close", (error) => {
  console.error(`${time()} closed: ${error.message}`);
  process.exit(1);
});
process.on("SIGINT", () => {
  room.close();
  process.exit(0);
});
