/* errdex static export: search and exact-template matching in the browser.
 *
 * Reads window.ERRDEX_INDEX (static/search-index.js): one entry per error,
 * [id, repo, exception, literals, placeholder names, message]. Everything from the index
 * or the user is put in the page with textContent, never as markup.
 */
(function () {
  "use strict";
  var MAX_LINE = 4000;
  var LIMIT = 20;
  // "ValueError: ", "pkg.mod.InvalidVersion: ", "Error: ": a type name before the message.
  var PREFIX = /^(?:[A-Za-z_][\w.]*(?:::[\w]+)*:\s+)+/;

  function root() {
    var el = document.querySelector('link[rel="stylesheet"]');
    return el ? el.getAttribute("href").replace(/static\/style\.css$/, "") : "";
  }

  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

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

  function regexFor(entry, anchored) {
    var lits = entry[3], src = "";
    for (var i = 0; i < lits.length; i++) {
      src += escapeRe(lits[i]);
      if (i < lits.length - 1) src += (i === lits.length - 2 && lits[i + 1] === "") ? "(.+)" : "(.+?)";
    }
    return new RegExp(anchored ? "^" + src + "$" : src);
  }

  function exactMatches(text, index) {
    var lines = text.split(/\r?\n/), best = {};
    for (var li = 0; li < lines.length; li++) {
      var line = lines[li].trim().slice(0, MAX_LINE);
      if (!line) continue;
      var stripped = line.replace(PREFIX, "");
      for (var k = 0; k < index.length; k++) {
        var e = index[k];
        var chars = literalChars(e[3]);
        if (chars < 3 || line.indexOf(longest(e[3])) < 0) continue;
        var m = regexFor(e, true).exec(stripped), full = true;
        if (!m) { m = regexFor(e, false).exec(line); full = false; }
        if (!m || (!full && chars < 8)) continue;
        var values = {};
        for (var h = 0; h < e[4].length; h++) values[e[4][h]] = m[h + 1];
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

  function words(text) { return (text.toLowerCase().match(/[a-z0-9_]+/g) || []); }

  function wordMatches(text, index, all) {
    var ws = words(text), out = [];
    if (!ws.length) return out;
    for (var k = 0; k < index.length; k++) {
      var msg = index[k][5].toLowerCase(), hits = 0;
      for (var i = 0; i < ws.length; i++) if (msg.indexOf(ws[i]) >= 0) hits++;
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
    var found = exactMatches(q, index), heading = document.getElementById("results-h");
    if (found.length) {
      heading.textContent = found.length + (found.length === 1 ? " matching error" : " matching errors");
      status.textContent = "";
      renderList(results, found);
      return;
    }
    found = wordMatches(q, index, true);
    if (found.length) {
      heading.textContent = found.length + (found.length === 1 ? " error" : " errors") + " containing these words";
      status.textContent = "";
      renderList(results, found);
      return;
    }
    heading.textContent = "No indexed error matches this text";
    var closest = wordMatches(q, index, false);
    status.textContent = closest.length ? "These are the closest errors:" : "Nothing close either.";
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

  document.addEventListener("DOMContentLoaded", function () { runSearch(); showValues(); });
})();
