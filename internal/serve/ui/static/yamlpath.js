// locate finds the line of a spec's YAML text that a dotted key path names (options.mode,
// settings.innodb_spin_wait_delay, schedule[1].at, vu[2]), as cairn's messages name keys. It reads
// block YAML by indentation, which is how specs are written; it returns the line (0-based) of the
// deepest part of the path it found, which for a key inside a flow mapping ({mode: procs}) or a
// flow list ([1, 2]) is its parent's line, or -1 when not even the first part is there.

function indentOf(line) { return line.length - line.trimStart().length; }

function significant(line) {
  const t = line.trim();
  return t !== "" && !t.startsWith("#") && t !== "---";
}

function parse(path) {
  const parts = [];
  for (const seg of path.split(".")) {
    const m = seg.match(/^([^[\]]*)((?:\[\d+\])*)$/);
    if (!m) { parts.push({ key: seg }); continue; }
    if (m[1] !== "") { parts.push({ key: m[1] }); }
    for (const ix of m[2].matchAll(/\[(\d+)\]/g)) { parts.push({ index: Number(ix[1]) }); }
  }
  return parts;
}

function keyOf(body) {
  const m = body.match(/^("[^"]*"|'[^']*'|[^:#{}[\],'"]+?)\s*:(\s|$)/);
  if (!m) { return null; }
  const k = m[1];
  return /^["']/.test(k) ? k.slice(1, -1) : k;
}

export function locate(text, path) {
  const lines = text.split("\n");
  let from = 0;
  let to = lines.length; // the block the next part is looked for in: lines [from, to)
  let found = -1;
  let itemIndent = null; // after an index: the indentation of the item's keys
  const minIndent = () => {
    let min = Infinity;
    for (let i = from; i < to; i++) { if (significant(lines[i])) { min = Math.min(min, indentOf(lines[i])); } }
    return min;
  };
  // end of the block under line i at indentation ind: the lines below indented further, and for a
  // key, a list written at its own indentation (key:\n- a).
  const blockEnd = (i, ind, listsToo) => {
    let j = i + 1;
    while (j < to && (!significant(lines[j]) || indentOf(lines[j]) > ind ||
      (listsToo && indentOf(lines[j]) === ind && lines[j].trimStart().startsWith("-")))) { j++; }
    return j;
  };
  for (const part of parse(path)) {
    let hit = -1;
    if (part.key !== undefined) {
      const want = itemIndent !== null ? itemIndent : minIndent();
      for (let i = from; i < to && hit < 0; i++) {
        if (!significant(lines[i])) { continue; }
        let ind = indentOf(lines[i]);
        let body = lines[i].trimStart();
        if (itemIndent !== null && i === from && body.startsWith("- ")) { body = body.slice(2).trimStart(); ind = itemIndent; }
        if (ind === want && keyOf(body) === part.key) { hit = i; }
      }
      if (hit < 0) { return found; }
      from = hit + 1;
      to = blockEnd(hit, want, true);
      itemIndent = null;
    } else {
      const want = minIndent();
      let n = -1;
      for (let i = from; i < to && hit < 0; i++) {
        if (significant(lines[i]) && indentOf(lines[i]) === want && lines[i].trimStart().startsWith("-")) {
          n++;
          if (n === part.index) { hit = i; }
        }
      }
      if (hit < 0) { return found; }
      from = hit;
      to = blockEnd(hit, want, false);
      itemIndent = want + 2;
    }
    found = hit;
  }
  return found;
}
