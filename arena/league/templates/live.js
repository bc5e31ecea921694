// A page that changes while it is read (a friendly in play, a tournament playing, a bot in
// quarantine) updates in place instead of reloading itself, so the reader keeps their place,
// an open fold stays open and a half-typed amount stays typed. Without this script the same
// page reloads itself (its <noscript> refresh), so it works either way.
//
// The page says how in <meta name="arena-live" content="SECONDS" data-events="URL">: with
// data-events it follows that stream of server-sent events (a "change" or "over" event, the
// page's new revision as data); otherwise it asks again every SECONDS. Each time it fetches the
// page itself and swaps the parts of <main> that differ. A page whose new copy no longer has the
// meta (the tournament is over) stops there.
"use strict";
(function () {
  let shown = null;       // the revision on screen (from the stream), null when unknown
  let busy = false;       // a fetch in flight
  let again = false;      // a change came during it
  let timer = null;
  let source = null;

  function settings(doc) {
    const meta = doc.querySelector('meta[name="arena-live"]');
    if (!meta) return null;
    return {every: Math.max(1, Number(meta.content) || 3), events: meta.dataset.events || null};
  }

  function key(node, index) {
    return node.id ? "#" + node.id : node.tagName + ":" + index;
  }

  function swap(fresh) {
    const main = document.querySelector("main");
    const next = fresh.querySelector("main");
    if (!main || !next) return;
    const hadDecision = !!document.getElementById("decision");
    const old = Array.from(main.children);
    const incoming = Array.from(next.children);
    const same = old.length === incoming.length && old.every((n, i) => key(n, i) === key(incoming[i], i));
    const folds = {};
    main.querySelectorAll("details[id]").forEach(d => { folds[d.id] = d.open; });
    if (same) {
      // Only what changed is replaced: an unchanged form keeps its focus and what was typed.
      incoming.forEach((n, i) => { if (n.outerHTML !== old[i].outerHTML) old[i].replaceWith(document.adoptNode(n)); });
    } else {
      main.replaceChildren(...incoming.map(n => document.adoptNode(n)));
    }
    main.querySelectorAll("details[id]").forEach(d => { if (d.id in folds) d.open = folds[d.id]; });
    document.title = fresh.title;
    const decision = document.getElementById("decision");
    if (decision && !hadDecision) decision.scrollIntoView({block: "nearest"});  // your turn: in view
  }

  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch(location.href, {cache: "no-store", credentials: "same-origin"});
      if (!response.ok) { stop(); return; }
      const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
      swap(fresh);
      const now = settings(fresh);
      if (!now) stop();
      else if (!now.events) schedule(now.every);
    } catch (e) {
      stop();  // the server is gone or restarting: the page stays as it was, a reload brings it back
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }

  function schedule(seconds) {
    clearTimeout(timer);
    timer = setTimeout(refresh, seconds * 1000);
  }

  function stop() {
    clearTimeout(timer);
    if (source) source.close();
    source = null;
  }

  function follow(url) {
    source = new EventSource(url);
    const told = event => {
      const revision = Number(event.data);
      if (revision !== shown) { shown = revision; refresh(); }
      if (event.type === "over") stop();
    };
    source.addEventListener("change", told);
    source.addEventListener("over", told);
  }

  const start = settings(document);
  if (!start) return;
  const main = document.querySelector("main");
  if (main && main.dataset.revision) shown = Number(main.dataset.revision);
  if (start.events && window.EventSource) follow(start.events);
  else schedule(start.every);
})();
