/* errdex static export: search and exact-template matching in the browser.
 *
 * Reads window.ERRDEX_INDEX (static/search-index.js): one entry per error,
 * [id, repo, exception, literals, placeholder names, message]. Everything from the index
 * or the user is put in the page with textContent, never as markup.
 */
(function () {
  "use strict";
  // Bounds on a query's work, whatever the text (a link's ?q= is anyone's text): every
  // step below is a plain string scan, linear in the line, and no RegExp is ever built
  // from the index or the user (a backtracking one froze the page for a minute on a
  // 720-character query).
  var MAX_QUERY = 20000;
  var MAX_LINE = 4000;
  var MAX_TERMS = 32; // as the server's text search (errdex.store.MAX_SEARCH_TERMS)
  var LIMIT = 20;
  var stats = { probes: 0 }; // string scans done: what a test counts

  function isWord(c) { return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || (c >= "0" && c <= "9") || c === "_"; }
  function isStart(c) { return (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c === "_"; }
  function isSpace(c) { return c === " " || c === "\t" || c === "\f" || c === "\v" || c === "\u00a0"; }

  // "ValueError: ", "pkg.mod.InvalidVersion: ", "Error: ": type names before the message,
  // each a name (letters, digits, _ and ., then ::name parts) followed by ":" and space.
  function stripPrefix(line) {
    var pos = 0, n = line.length;
    for (;;) {
      var i = pos;
      if (i >= n || !isStart(line[i])) break;
      i++;
      while (i < n && (isWord(line[i]) || line[i] === ".")) i++;
      while (line[i] === ":" && line[i + 1] === ":" && i + 2 < n && isWord(line[i + 2])) {
        i += 2;
        while (i < n && isWord(line[i])) i++;
      }
      if (line[i] !== ":") break;
      var j = i + 1;
      while (j < n && isSpace(line[j])) j++;
      if (j === i + 1) break;
      pos = j;
    }
    return line.slice(pos);
  }

  function root() {
    var el = document.querySelector('link[rel="stylesheet"]');
    return el ? el.getAttribute("href").replace(/static\/style\.css$/, "") : "";
  }

  function literalChars(lits) {
    var n = 0;
    for (var i = 0; i < lits.length; i++) n += lits[i].trim().length;
    return n;
  }

  function longest(lits) {
    var best = "";
    for (var i = 0; i < lits.length; i++) if (lits[i].length > best.length) best = lits[i];
    return best;
  }

  function find(text, piece, from) { stats.probes++; return text.indexOf(piece, from); }

  // The values of the holes when the literal pieces occur in `text` in order with at least
  // one character for each hole between them (the whole of `text` when anchored), else
  // null. Each piece is taken at its earliest place, which leaves the most room for the
  // rest: if that fails, every later place fails too, so one left-to-right pass decides,
  // and the values are those a lazy `(.+?)` pattern would bind.
  function bind(lits, text, anchored) {
    var last = lits.length - 1, values = [], start, pos;
    if (anchored) {
      stats.probes++;
      if (text.slice(0, lits[0].length) !== lits[0]) return null;
      start = 0;
    } else {
      start = find(text, lits[0], 0);
      if (start < 0) return null;
    }
    pos = start + lits[0].length;
    if (last === 0) return anchored && pos !== text.length ? null : values;
    for (var i = 1; i < last; i++) {
      var at = find(text, lits[i], pos + 1);
      if (at < 0) return null;
      values.push(text.slice(pos, at));
      pos = at + lits[i].length;
    }
    var tail = lits[last], end;
    if (anchored || tail === "") {
      stats.probes++;
      end = text.length - tail.length;
      if (text.slice(end) !== tail) return null;
      if (!anchored) end = text.length;
    } else {
      end = find(text, tail, pos + 1);
    }
    if (end < pos + 1) return null;
    values.push(text.slice(pos, end));
    return values;
  }

  function exactMatches(text, index) {
    var lines = text.slice(0, MAX_QUERY).split(/\r\n|[\n\r\u2028\u2029]/), best = {};
    for (var li = 0; li < lines.length; li++) {
      var line = lines[li].trim().slice(0, MAX_LINE);
      if (!line) continue;
      var stripped = stripPrefix(line);
      for (var k = 0; k < index.length; k++) {
        var e = index[k];
        var chars = literalChars(e[3]);
        if (chars < 3 || find(line, longest(e[3]), 0) < 0) continue;
        var m = bind(e[3], stripped, true), full = true;
        if (!m) { m = bind(e[3], line, false); full = false; }
        if (!m || (!full && chars < 8)) continue;
        var values = {};
        for (var h = 0; h < e[4].length; h++) values[e[4][h]] = m[h];
        // A whole message line beats a piece of one (a traceback's source line quotes
        // the template); among equals the later line wins (the exception comes last).
        var rank = (full ? 1e6 : 0) + chars * 1000 + li / lines.length;
        if (!best[e[0]] || best[e[0]].rank <= rank) best[e[0]] = { entry: e, values: values, rank: rank };
      }
    }
    var out = Object.keys(best).map(function (k) { return best[k]; });
    out.sort(function (a, b) { return b.rank - a.rank; });
    return out.slice(0, LIMIT);
  }

  // The words of a query: runs of letters, digits and _, lower-cased, each once, at most
  // MAX_TERMS of them.
  function words(text) {
    var out = [], seen = {}, lower = text.slice(0, MAX_QUERY).toLowerCase(), i = 0, n = lower.length;
    while (i < n && out.length < MAX_TERMS) {
      while (i < n && !isWord(lower[i])) i++;
      var j = i;
      while (j < n && isWord(lower[j])) j++;
      if (j > i) {
        var w = lower.slice(i, j);
        if (!Object.prototype.hasOwnProperty.call(seen, w)) { seen[w] = true; out.push(w); }
      }
      i = j;
    }
    return out;
  }

  function wordMatches(text, index, all) {
    var ws = words(text), out = [];
    if (!ws.length) return out;
    for (var k = 0; k < index.length; k++) {
      var msg = index[k][5].toLowerCase(), hits = 0;
      for (var i = 0; i < ws.length; i++) if (find(msg, ws[i], 0) >= 0) hits++;
      if (all ? hits === ws.length : hits > 0) out.push({ entry: index[k], values: {}, rank: hits * 1000 - msg.length });
    }
    out.sort(function (a, b) { return b.rank - a.rank; });
    return out.slice(0, all ? LIMIT : 5);
  }

  function el(tag, text, cls) {
    var n = document.createElement(tag);
    if (text !== undefined) n.textContent = text;
    if (cls) n.className = cls;
    return n;
  }

  function messageNode(entry, values) {
    var code = el("code", undefined, "message"), lits = entry[3], names = entry[4];
    for (var i = 0; i < lits.length; i++) {
      if (lits[i]) code.appendChild(document.createTextNode(lits[i]));
      if (i < names.length) {
        var bound = Object.prototype.hasOwnProperty.call(values, names[i]);
        var hole = el(bound ? "mark" : "span", bound ? values[names[i]] : "{" + names[i] + "}", bound ? "value" : "hole");
        code.appendChild(hole);
      }
    }
    return code;
  }

  function errorHref(id, values) {
    var q = new URLSearchParams();
    Object.keys(values).forEach(function (k) { q.append("v." + k, values[k]); });
    var s = q.toString();
    return root() + "errors/" + encodeURIComponent(id) + ".html" + (s ? "?" + s : "");
  }

  function renderList(target, items) {
    var ol = el("ol", undefined, "results");
    items.forEach(function (item) {
      var e = item.entry, li = el("li"), a = el("a");
      a.href = errorHref(e[0], item.values);
      a.appendChild(messageNode(e, item.values));
      li.appendChild(a);
      li.appendChild(el("p", (e[2] || "error") + " · " + e[1], "meta"));
      ol.appendChild(li);
    });
    target.appendChild(ol);
  }

  function runSearch() {
    var results = document.getElementById("results");
    var status = document.getElementById("status");
    if (!results || !status) return;
    var q = new URLSearchParams(window.location.search).get("q") || "";
    var box = document.getElementById("q");
    if (box) box.value = q;
    var index = window.ERRDEX_INDEX || [];
    if (!q.trim()) { status.textContent = "Paste an error message, a traceback or a log, or type a few words of a message."; return; }
    var cut = q.length > MAX_QUERY ? "Only the first " + MAX_QUERY + " characters were searched. " : "";
    var found = exactMatches(q, index), heading = document.getElementById("results-h");
    if (found.length) {
      heading.textContent = found.length + (found.length === 1 ? " matching error" : " matching errors");
      status.textContent = cut;
      renderList(results, found);
      return;
    }
    found = wordMatches(q, index, true);
    if (found.length) {
      heading.textContent = found.length + (found.length === 1 ? " error" : " errors") + " containing these words";
      status.textContent = cut;
      renderList(results, found);
      return;
    }
    heading.textContent = "No indexed error matches this text";
    var closest = wordMatches(q, index, false);
    status.textContent = cut + (closest.length ? "These are the closest errors:" : "Nothing close either.");
    renderList(results, closest);
  }

  function showValues() {
    var section = document.getElementById("your-values");
    var list = document.getElementById("values-list");
    if (!section || !list || !section.hidden) return;
    var params = new URLSearchParams(window.location.search), any = false;
    params.forEach(function (value, key) {
      if (key.indexOf("v.") !== 0 || key.length < 3) return;
      var name = key.slice(2), holes = document.querySelectorAll(".message-block [data-hole]");
      var known = false;
      for (var i = 0; i < holes.length; i++) {
        if (holes[i].getAttribute("data-hole") !== name) continue;
        var mark = el("mark", value, "value");
        mark.setAttribute("data-hole", name);
        holes[i].replaceWith(mark);
        known = true;
      }
      if (!known) return;
      list.appendChild(el("dt", name));
      list.appendChild(el("dd", value));
      any = true;
    });
    if (any) section.hidden = false;
  }

  var api = { exactMatches: exactMatches, wordMatches: wordMatches, words: words,
              stripPrefix: stripPrefix, stats: stats, MAX_QUERY: MAX_QUERY };
  if (typeof module !== "undefined" && module.exports) module.exports = api; // tests, under node
  if (typeof document !== "undefined") {
    document.addEventListener("DOMContentLoaded", function () { runSearch(); showValues(); });
  }
})();
