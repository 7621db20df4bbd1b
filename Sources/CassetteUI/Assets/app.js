"use strict";
// The cassette UI: one script for the page a proxy or `cassette ui` serves (data fetched from
// api/...) and for the HTML report (data read from the inline JSON block). Everything recorded is
// put into the page with textContent or attributes, never parsed as HTML.
(function () {
  // The list fetches PAGE rows at a time and keeps OVERSCAN rows drawn above and below the view.
  const PAGE = 200;
  const OVERSCAN = 20;
  const ROW_HEIGHT = 26;
  // The Live view keeps the newest LIVE_ROWS requests and LIVE_MISSES misses in the page.
  const LIVE_ROWS = 500;
  const LIVE_MISSES = 50;
  // The list's filter, in the URL in this order; the served list and the report's both read it.
  const FILTERS = ["cassette", "method", "status", "host", "path", "operation", "text"];
  // Typing in the list's filter applies it once no key came for this long.
  const FILTER_DELAY = 300;
  const inline = document.getElementById("cassette-data");
  const report = inline ? JSON.parse(inline.textContent) : null;
  const recordings = report ? unpack(report.interactions) : null;
  const main = document.getElementById("main");
  let liveSource = null;
  // What the current view must undo when the next one is drawn.
  let leaveView = null;
  let reportFilter = { key: null, rows: [] };
  // Where the list was when a recording or a conversation was opened from it ({hash, scrollTop,
  // id} or {hash, conversation}): its detail links back there, and the list, drawn again, scrolls
  // back and gives the focus to the link that opened it, so a keyboard user goes on from there.
  let listPlace = null;

  function el(tag, attrs, children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === "text") node.textContent = value;
      else if (name === "cls") node.className = value;
      else if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value);
    }
    for (const child of children || []) if (child) node.appendChild(child);
    return node;
  }
  function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
  function size(bytes) {
    if (bytes < 1024) return bytes + " B";
    if (bytes < 1048576) return (bytes / 1024).toFixed(1) + " KiB";
    return (bytes / 1048576).toFixed(1) + " MiB";
  }
  function age(iso) {
    if (!iso) return "";
    const seconds = Math.max(0, (Date.now() - Date.parse(iso)) / 1000);
    if (seconds < 60) return Math.round(seconds) + " s ago";
    if (seconds < 3600) return Math.round(seconds / 60) + " min ago";
    if (seconds < 86400) return Math.round(seconds / 3600) + " h ago";
    return Math.round(seconds / 86400) + " d ago";
  }
  function statusClass(status) { return "status s" + String(status).charAt(0); }

  // Where the data comes from: the server's api/, or the report's inline block.
  const data = report ? {
    cassettes: () => Promise.resolve({ cassettes: report.cassettes }),
    interactions(filter) {
      // Filtered once per filter (the rows' places), then sliced page by page as the list
      // scrolls: only the rows drawn are unpacked, unless a filter has to read them all.
      const key = JSON.stringify(FILTERS.map((name) => filter[name] || ""));
      if (reportFilter.key !== key) {
        const active = FILTERS.some((name) => filter[name]);
        const places = [];
        for (let place = 0; place < recordings.count; place++) if (!active || matches(recordings.row(place), filter)) places.push(place);
        reportFilter = { key: key, rows: places };
      }
      const offset = filter.offset || 0;
      const places = reportFilter.rows;
      return Promise.resolve({ total: places.length, offset: offset, rows: places.slice(offset, offset + (filter.limit || PAGE)).map(recordings.row) });
    },
    interaction(id) {
      const place = recordings.place(id);
      return place >= 0 ? Promise.resolve(recordings.row(place)) : Promise.reject(new Error("no recording " + id + " in this report"));
    },
    conversations: () => Promise.resolve({ conversations: report.conversations || [] }),
    conversation(id) {
      const found = (report.conversations || []).find((item) => String(item.id) === String(id));
      return found ? Promise.resolve(found) : Promise.reject(new Error("no conversation or gRPC call " + id + " in this report"));
    },
    findings: () => Promise.resolve(report.findings || { audit: null, drift: null }),
    // A run's report: the run itself (its requests outside sessions), then each session it
    // opened; a store's report has none (the store keeps no sessions).
    sessions: () => Promise.resolve(report.run
      ? { live: true, sessions: [runSession(report.run)].concat(report.run.sessions || []) }
      : { live: false, sessions: [] }),
  } : {
    cassettes: () => getJSON("api/cassettes"),
    interactions: (filter) => getJSON("api/interactions?" + new URLSearchParams(clean(filter)).toString()),
    interaction: (id) => getJSON("api/interaction?id=" + encodeURIComponent(id)),
    conversations: () => getJSON("api/conversations"),
    conversation: (id) => getJSON("api/conversation?id=" + encodeURIComponent(id)),
    findings: () => getJSON("api/findings"),
    sessions: () => getJSON("api/sessions"),
  };
  // The run's own requests (those outside sessions) as the Sessions view shows a session:
  // counts, misses by key with their nearest recordings, unused recordings, the journal.
  function runSession(run) {
    const own = run.requests.filter((event) => !event.session);
    const missed = new Map();
    for (const event of own) {
      if (!event.miss) continue;
      const known = missed.get(event.miss.key);
      if (known) known.count++;
      else missed.set(event.miss.key, { key: event.miss.key, count: 1, message: event.miss.summary, nearest: event.miss.nearest });
    }
    return {
      id: "run", title: "The run" + (run.command ? ": " + run.command : ""), state: "the run", cassette: run.cassette || "", mode: run.mode || "", baseURL: "",
      summary: { served: own.length, recorded: own.filter((event) => event.tag === "recorded").length, missed: Array.from(missed.values()), unused: run.unused || [] },
      journal: { count: own.length, requests: own.map((event) => ({ at: event.at, source: event.tag, method: event.method, path: event.target, status: event.status, durationMs: event.durationMs })) },
    };
  }
  // The report's recordings come packed (HTMLReport's ReportTables): header lines, header
  // sets and bodies each written once, a recording a row of values pointing into them.
  // A row is unpacked into the object the served api/interaction gives when first asked for.
  function unpack(tables) {
    const column = {};
    tables.columns.forEach((name, index) => { column[name] = index; });
    const sets = tables.headerSets.map((set) => set.map((line) => tables.headerLines[line]));
    const unpacked = new Array(tables.rows.length);
    function row(place) {
      if (unpacked[place]) return unpacked[place];
      const values = tables.rows[place];
      const value = (name) => values[column[name]];
      const responseBody = tables.bodies[value("responseBody")];
      return (unpacked[place] = {
        id: value("id"), cassette: value("cassette"), method: value("method"), url: value("url"),
        key: value("key") === null ? derivedKey(value("method"), value("url")) : value("key"), sequence: value("sequence"),
        status: value("status"), size: responseBody.size, recordedAt: new Date(value("recordedAtMs")).toISOString(), durationMs: value("durationMs"),
        operation: value("operation"), requestHeaders: sets[value("requestHeaders")], responseHeaders: sets[value("responseHeaders")],
        requestBody: value("requestBody") === null ? undefined : tables.bodies[value("requestBody")], responseBody: responseBody,
      });
    }
    function place(id) {
      for (let index = 0; index < tables.rows.length; index++) if (String(tables.rows[index][column.id]) === String(id)) return index;
      return -1;
    }
    return { count: tables.rows.length, row: row, place: place };
  }
  // `GET /items/1?a=b` of GET and http://host/items/1?a=b: a packed row's key when it is
  // null (ReportTables.derivedKey, the same rule).
  function derivedKey(method, url) {
    const scheme = url.indexOf("://");
    if (scheme < 0) return null;
    const rest = url.slice(scheme + 3);
    const slash = rest.indexOf("/");
    return method + " " + (slash < 0 ? "/" : rest.slice(slash));
  }
  function getJSON(url) {
    return fetch(url, { credentials: "same-origin" }).then((response) =>
      response.json().then((body) => {
        if (!response.ok) throw new Error(body.message || response.statusText);
        return body;
      }));
  }
  function clean(filter) {
    const out = {};
    for (const [name, value] of Object.entries(filter)) if (value !== "" && value !== undefined && value !== null) out[name] = value;
    return out;
  }
  function matches(row, filter) {
    if (filter.cassette && row.cassette !== filter.cassette) return false;
    if (filter.method && row.method !== filter.method.toUpperCase()) return false;
    if (filter.status && String(row.status) !== String(filter.status)) return false;
    if (filter.host && row.url.toLowerCase().indexOf("://" + filter.host.toLowerCase()) < 0) return false;
    if (filter.path && row.url.indexOf(filter.path) < 0) return false;
    // As the store filters: part of the GraphQL operation's label (`query GetUser`), case ignored.
    if (filter.operation && (!row.operation || row.operation.toLowerCase().indexOf(filter.operation.toLowerCase()) < 0)) return false;
    if (filter.text) {
      const bodies = [row.requestBody, row.responseBody].filter(Boolean).map((body) => body.text || "");
      if (!bodies.some((text) => text.indexOf(filter.text) >= 0)) return false;
    }
    return true;
  }

  // The view and its filter live in the URL's hash, so a link shows the same thing.
  function route() {
    const hash = location.hash.replace(/^#\/?/, "");
    const [view, query] = hash.split("?");
    return { view: view || (report && report.run ? "live" : "cassettes"), params: new URLSearchParams(query || "") };
  }
  // `replace`: the URL changes without a history entry (a filter as it is typed), and the view is
  // drawn at once, since replacing the URL fires no hashchange.
  function go(view, params, options) {
    const query = params ? new URLSearchParams(clean(params)).toString() : "";
    const hash = "#/" + view + (query ? "?" + query : "");
    if (hash === location.hash) return;
    if (options && options.replace) {
      history.replaceState(null, "", hash);
      render();
    } else {
      location.hash = hash;
    }
  }

  function render() {
    if (liveSource) { liveSource.close(); liveSource = null; }
    if (leaveView) { leaveView(); leaveView = null; }
    const { view, params } = route();
    for (const link of document.querySelectorAll("nav a")) {
      const active = link.dataset.view === view.split("/")[0];
      link.classList.toggle("active", active);
      if (active) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    const typing = focusedField();
    clear(main);
    const show = { cassettes: cassettesView, interactions: interactionsView, interaction: detailView, conversation: conversationView, live: liveView, sessions: sessionsView, drift: driftView }[view] || cassettesView;
    const shown = show(params);
    refocus(typing);
    shown.catch((error) => main.appendChild(el("p", { cls: "error", text: String(error.message || error) })));
  }

  // A filter field being typed in, so the view drawn for the new filter gives it back the focus
  // and the caret (the list filters as you type, and each filter is a new view in the URL).
  function focusedField() {
    const field = document.activeElement;
    if (!field || field.tagName !== "INPUT" || !field.name || !field.form || !field.form.id || !main.contains(field)) return null;
    return { form: field.form.id, name: field.name, start: field.selectionStart, end: field.selectionEnd };
  }
  function refocus(typing) {
    if (!typing) return;
    const field = main.querySelector("form#" + typing.form + " input[name=\"" + typing.name + "\"]");
    if (!field) return;
    field.focus();
    if (typing.start !== null) field.setSelectionRange(typing.start, typing.end);
  }

  // A cassette's gRPC calls and WebSocket conversations are counted in columns of their own when
  // the store holds any (api/cassettes counts them, with their messages in Size and their times
  // in Last recorded): a cassette of gRPC calls only is not "0, never". A gRPC call is stored
  // without its host: a cassette whose recordings name none shows what it was recorded from.
  function cassettesView() {
    return data.cassettes().then((body) => {
      const grpc = body.cassettes.some((cassette) => cassette.grpcCalls > 0);
      const websocket = body.cassettes.some((cassette) => cassette.conversations > 0);
      const rows = body.cassettes.map((cassette) => {
        const last = cassette.lastRecorded;
        const hosts = cassette.hosts || [];
        const upstreams = cassette.upstreams || [];
        return el("tr", {}, [
          el("td", {}, [el("a", { href: "#/interactions?cassette=" + encodeURIComponent(cassette.name), text: cassette.name })]),
          el("td", { cls: "num", text: String(cassette.interactions) }),
          grpc ? el("td", { cls: "num", text: String(cassette.grpcCalls) }) : null,
          websocket ? el("td", { cls: "num", text: String(cassette.conversations) }) : null,
          el("td", { text: hosts.length || !upstreams.length ? hosts.join(", ") : "recorded from " + upstreams.join(", ") }),
          el("td", { text: last ? last + " (" + age(last) + ")" : "" }),
          el("td", { cls: "num", text: size(cassette.size) }),
          unknown(cassette)
            ? el("td", { cls: "num", text: "unknown", "aria-describedby": "unused-unknown" })
            : el("td", { cls: "num", text: unusedText(cassette.unused, cassette.unusedGRPCMethods) }),
        ]);
      });
      main.appendChild(el("h1", { text: "Cassettes" }));
      const headings = ["Name", "Interactions"].concat(grpc ? ["gRPC calls"] : [], websocket ? ["WebSocket conversations"] : [], ["Hosts", "Last recorded", "Size", "Unused"]);
      main.appendChild(table(headings, rows, "cassettes"));
      if (body.cassettes.some(unknown)) {
        main.appendChild(el("p", { id: "unused-unknown", cls: "note", text: "Unused is unknown where no replay of the cassette was tracked: the store holds no usage. "
          + "Replay with --track-usage (cassette replay --track-usage) and the store counts the unused recordings and gRPC methods as the proxy does." }));
      }
    });
  }

  function table(headings, rows, id) {
    return el("table", { id: id }, [
      el("thead", {}, [el("tr", {}, headings.map((heading) => el("th", { text: heading })))]),
      el("tbody", {}, rows),
    ]);
  }

  // The list of a store's recordings, virtualized: only the rows in view (and a few either
  // side) are in the page; the rest is two spacer rows whose heights stand for them. Rows
  // come in pages of PAGE, fetched as they scroll into view, so 100,000 cost what 50 do.
  function interactionsView(params) {
    const filter = {};
    for (const name of FILTERS) filter[name] = params.get(name) || "";
    function typed() {
      const next = { cassette: filter.cassette };
      for (const input of form.querySelectorAll("input")) next[input.name] = input.value.trim();
      return next;
    }
    // As you type, after a pause of FILTER_DELAY ms, the URL is replaced (not a history entry per
    // key); Enter or the button applies it at once, as a history entry.
    let pending = null;
    const form = el("form", { id: "filter", role: "search", "aria-label": "Filter the interactions", onsubmit(event) {
      event.preventDefault();
      clearTimeout(pending);
      go("interactions", typed());
    }, oninput() {
      clearTimeout(pending);
      pending = setTimeout(() => { if (form.isConnected) go("interactions", typed(), { replace: true }); }, FILTER_DELAY);
    } }, FILTERS.filter((name) => name !== "cassette").map((name) =>
      el("label", {}, [el("span", { text: name === "text" ? "body text" : name }),
        el("input", { name: name, value: filter[name], placeholder: name === "operation" ? "GraphQL: GetUser" : "" })]))
      .concat([el("button", { type: "submit", text: "Filter" })]));
    const back = listPlace && listPlace.hash === location.hash ? listPlace : null;
    main.appendChild(el("h1", { text: filter.cassette ? "Interactions of " + filter.cassette : "Interactions" }));
    main.appendChild(form);
    const count = el("span", { id: "count", role: "status" });
    main.appendChild(el("p", { cls: "pager" }, [count]));
    const body = el("tbody");
    const columns = ["method", "status", "url", "size", "age", "time"];
    const list = el("table", { id: "interactions", cls: "virtual" }, [
      el("colgroup", {}, columns.map((name) => el("col", { cls: "col-" + name }))),
      el("thead", {}, [el("tr", {}, ["Method", "Status", "URL", "Size", "Age", "Time"].map((heading) => el("th", { text: heading })))]),
      body,
    ]);
    const scroller = el("div", { id: "scroller", cls: "scroller" }, [list]);
    main.appendChild(scroller);
    const conversations = el("section", { id: "conversations-section" });
    main.appendChild(conversations);
    body.addEventListener("click", (event) => {
      const row = event.target.closest("tr.row");
      if (row && row.dataset.id) listPlace = { hash: location.hash, scrollTop: scroller.scrollTop, id: row.dataset.id };
    });
    // An empty list is its one line in the status region, without an empty table a screen tall
    // above what the store does hold (its gRPC calls and conversations, drawn below).
    const filtered = FILTERS.some((name) => name !== "cassette" && filter[name]);
    return virtualRows(scroller, body, filter, (total) => {
      count.dataset.total = String(total);
      scroller.hidden = total === 0;
      count.textContent = total > 0 ? total + (total === 1 ? " interaction" : " interactions")
        : filtered ? "no interactions match" : "no HTTP interactions recorded" + (filter.cassette ? " in " + filter.cassette : "");
    }, back && back.id ? back : null).then(() => conversationsList(conversations, filter, back && back.conversation ? back : null));
  }

  // The store's WebSocket conversations below the list, filtered as far as a handshake can
  // be (cassette, host, path; a GET with no body, status or operation), each linked to its
  // timeline; then its gRPC calls (a POST by method path), each linked to its messages.
  function conversationsList(section, filter, back) {
    if (filter.status || filter.text || filter.operation) return Promise.resolve();
    const method = (filter.method || "").toUpperCase();
    return data.conversations().then((body) => {
      const kept = body.conversations.filter((item) => (!filter.cassette || item.cassette === filter.cassette) &&
        (!filter.host || item.url.toLowerCase().indexOf("://" + filter.host.toLowerCase()) >= 0) && (!filter.path || item.url.indexOf(filter.path) >= 0));
      if (!section.isConnected) return;
      const calls = kept.filter((item) => item.grpc && (!method || method === "POST"));
      const shown = kept.filter((item) => !item.grpc && (!method || method === "GET"));
      if (calls.length) grpcList(section, calls);
      if (!shown.length) return focusBack(section, back);
      section.appendChild(el("h2", { text: "WebSocket conversations (" + shown.length + ")" }));
      // A click anywhere on the row opens it; its link is what Tab reaches and Enter opens.
      section.appendChild(table(["URL", "Messages", "Ended", "Recorded"], shown.map((item) => el("tr", { cls: "row", "data-id": String(item.id), onclick(event) {
        listPlace = { hash: location.hash, conversation: String(item.id) };
        if (!event.target.closest("a")) go("conversation", { id: item.id });
      } }, [
        el("td", { cls: "url" }, [el("a", { cls: "open", href: "#/conversation?id=" + item.id, text: item.url })]),
        el("td", { cls: "num", text: String(item.messages) }),
        el("td", { text: item.end.summary }),
        el("td", { text: age(item.recordedAt) }),
      ])), "conversations"));
      focusBack(section, back);
    });
  }

  function focusBack(section, back) {
    const opened = back && section.querySelector("tr.row[data-id=\"" + back.conversation + "\"] a.open");
    if (opened) opened.focus();
  }

  // gRPC calls: the method's path, its grpc-status by name, its messages, when it was recorded.
  function grpcList(section, calls) {
    section.appendChild(el("h2", { text: "gRPC calls (" + calls.length + ")" }));
    section.appendChild(table(["Method", "Status", "Messages", "Recorded"], calls.map((item) => el("tr", { cls: "row", "data-id": String(item.id), onclick(event) {
      listPlace = { hash: location.hash, conversation: String(item.id) };
      if (!event.target.closest("a")) go("conversation", { id: item.id });
    } }, [
      el("td", { cls: "url" }, [el("a", { cls: "open", href: "#/conversation?id=" + item.id, text: item.grpc.method })]),
      el("td", { cls: "grpc-status", text: item.grpc.status + (item.grpc.message ? " \u201c" + item.grpc.message + "\u201d" : "") }),
      el("td", { cls: "num", text: String(item.messages) }),
      el("td", { text: age(item.recordedAt) }),
    ])), "grpc-calls"));
  }

  // One gRPC call: its metadata, its messages both ways as protobuf JSON (raw without
  // descriptors) with their offsets, then its status and trailers.
  function callView(item) {
    const call = item.grpc;
    main.appendChild(backLink());
    main.appendChild(el("h1", {}, [el("span", { text: "gRPC " }), el("span", { cls: "url", text: call.method })]));
    main.appendChild(el("p", { id: "summary", text: [call.kind ? call.kind + " call" : "call", "status " + call.status, item.messages + (item.messages === 1 ? " message" : " messages"),
      "recorded " + item.recordedAt, "cassette " + item.cassette, "#" + item.sequence].join(" · ") }));
    main.appendChild(el("h2", { text: "Request metadata" }));
    main.appendChild(headersTable(item.requestHeaders));
    main.appendChild(el("h2", { text: "Response headers" }));
    main.appendChild(call.responseHeaders ? headersTable(call.responseHeaders) : el("p", { cls: "note", text: "trailers only: the answer was one HEADERS frame with the status" }));
    main.appendChild(el("h2", { text: "Messages" }));
    const timeline = el("ol", { id: "timeline", cls: "timeline" });
    for (const message of item.timeline) {
      const type = message.direction === "client" ? call.requestType : call.responseType;
      const heading = el("p", { cls: "message-head" }, [
        el("span", { cls: "offset", text: "+" + message.offsetMs.toFixed(1) + " ms" }),
        el("span", { cls: "direction", text: message.direction === "client" ? "client → server" : "server → client" }),
        el("span", { cls: "tag kind", text: message.kind }),
        message.decoded ? el("span", { cls: "tag decoded", text: message.decoded === "raw" ? "raw (no descriptors)" : message.decoded }) : null,
        message.close === undefined ? el("span", { cls: "note", text: message.size + (message.size === 1 ? " byte" : " bytes") }) : null,
      ].filter(Boolean));
      const entry = el("li", { cls: "message " + message.direction + " grpc" }, [heading]);
      if (message.close !== undefined) entry.appendChild(el("p", { cls: "close", text: message.close }));
      else if (message.payload && message.payload.size > 0) entry.appendChild(bodyView(message.payload, null));
      else entry.appendChild(el("p", { cls: "note", text: "an empty message (every field at its default)" + (type ? " of " + type : "") }));
      timeline.appendChild(entry);
    }
    const ended = call.code !== undefined && call.code !== null ? "grpc-status " + call.code + " " + call.status + (call.message ? ", \u201c" + call.message + "\u201d" : "") : call.status;
    timeline.appendChild(el("li", { cls: "message end " + (call.code === 0 ? "closed" : "cut"), id: "conversation-end" }, [el("span", { cls: "tag", text: call.status }), el("span", { text: " " + ended })]));
    main.appendChild(timeline);
    main.appendChild(el("h2", { text: "Trailers" }));
    main.appendChild(call.trailers.length ? headersTable(call.trailers) : el("p", { cls: "note", text: "none" }));
  }

  function rowView(row, index) {
    return el("tr", { cls: "row", "data-id": String(row.id), "data-index": String(index), onclick(event) { if (!event.target.closest("a")) go("interaction", { id: row.id }); } }, [
      el("td", { text: row.method }),
      el("td", { cls: statusClass(row.status), text: String(row.status) }),
      el("td", { cls: "url", title: (row.operation ? row.operation + " " : "") + row.url }, [
        row.operation ? el("span", { cls: "op", text: row.operation }) : null,
        el("a", { cls: "open", href: "#/interaction?id=" + encodeURIComponent(row.id), text: row.url,
          "aria-label": (row.operation ? row.operation + " " : "") + row.method + " " + row.url + ", status " + row.status })]),
      el("td", { cls: "num", text: size(row.size) }),
      el("td", { text: age(row.recordedAt) }),
      el("td", { cls: "num", text: row.durationMs.toFixed(1) + " ms" }),
    ]);
  }

  function spacerRow(height) {
    const row = el("tr", { cls: "spacer" }, [el("td", { colspan: "6" })]);
    row.style.height = height + "px";
    return row;
  }

  // Draws the rows of `scroller` in view; `counted(total)` once the first page says how many.
  // `performance.mark("cassette-rows")` follows each draw whose rows are all loaded, after the
  // next frame: what Benchmarks/ui-list.sh measures.
  let listGeneration = 0;
  // `back`: the place (listPlace) to scroll to and the row whose link gets the focus once drawn.
  function virtualRows(scroller, body, filter, counted, back) {
    const generation = ++listGeneration;
    const pages = new Map();
    let total = 0;
    let rowHeight = ROW_HEIGHT;
    let measured = false;
    let scheduled = false;
    let markNext = true;
    let focusId = back ? back.id : null;
    function current() { return generation === listGeneration && scroller.isConnected; }
    function load(page) {
      if (pages.has(page)) return pages.get(page);
      const loading = data.interactions(Object.assign({}, filter, { offset: page * PAGE, limit: PAGE })).then((answer) => {
        total = answer.total;
        pages.set(page, answer.rows);
        markNext = true;
        if (current()) schedule();
        return answer;
      }, (error) => {
        pages.delete(page);
        throw error;
      });
      pages.set(page, loading);
      return loading;
    }
    function rowAt(index) {
      const page = pages.get(Math.floor(index / PAGE));
      return Array.isArray(page) ? page[index % PAGE] : null;
    }
    function draw() {
      scheduled = false;
      if (!current()) return;
      const top = scroller.scrollTop;
      // A short list makes the scroller only as tall as its rows (CSS max-height), so before the
      // first draw it is just its header: the view to fill is the height it may grow to.
      const view = Math.max(scroller.clientHeight, parseFloat(getComputedStyle(scroller).maxHeight) || 0);
      const first = Math.min(total, Math.max(0, Math.floor(top / rowHeight) - OVERSCAN));
      const last = Math.min(total, Math.ceil((top + view) / rowHeight) + OVERSCAN);
      let missing = 0;
      const rows = [spacerRow(first * rowHeight)];
      for (let index = first; index < last; index++) {
        const row = rowAt(index);
        if (row) {
          rows.push(rowView(row, index));
        } else {
          missing++;
          rows.push(el("tr", { cls: "row loading", "data-index": String(index) }, [el("td", { colspan: "6", text: "…" })]));
          load(Math.floor(index / PAGE)).catch(showError);
        }
      }
      rows.push(spacerRow((total - last) * rowHeight));
      // Tab scrolls the list to the next row's link, and the rows are drawn anew: the focus stays
      // on the link of the same row (still drawn, OVERSCAN rows either side of the view).
      const focused = body.contains(document.activeElement) ? document.activeElement.closest("tr.row") : null;
      clear(body);
      for (const row of rows) body.appendChild(row);
      if (focused) {
        const again = body.querySelector("tr.row[data-index=\"" + focused.dataset.index + "\"] a.open");
        if (again) again.focus({ preventScroll: true });
      }
      const opened = focusId !== null && body.querySelector("tr.row[data-id=\"" + focusId + "\"] a.open");
      if (opened) {
        focusId = null;
        opened.focus({ preventScroll: true });
      }
      if (!measured && missing === 0 && last > first) {
        // The CSS sets the height; the browser's rounding decides it: use what it drew.
        measured = true;
        const drawn = body.querySelector("tr.row").getBoundingClientRect().height;
        if (drawn > 0 && Math.abs(drawn - rowHeight) > 0.01) {
          rowHeight = drawn;
          return draw();
        }
      }
      if (missing === 0 && markNext) {
        markNext = false;
        requestAnimationFrame(() => setTimeout(() => performance.mark("cassette-rows", { detail: { total: total, first: first, last: last } }), 0));
      }
    }
    function schedule() {
      if (scheduled) return;
      scheduled = true;
      requestAnimationFrame(draw);
    }
    function showError(error) {
      if (current()) main.appendChild(el("p", { cls: "error", text: String(error.message || error) }));
    }
    scroller.addEventListener("scroll", () => { markNext = true; schedule(); }, { passive: true });
    window.addEventListener("resize", schedule, { passive: true });
    leaveView = () => window.removeEventListener("resize", schedule);
    return load(0).then((answer) => {
      if (!current()) return;
      counted(answer.total);
      draw();
      if (back && back.scrollTop) {
        scroller.scrollTop = back.scrollTop;
        draw();
      }
    });
  }

  function detailView(params) {
    return data.interaction(params.get("id")).then((item) => {
      main.appendChild(backLink());
      main.appendChild(el("h1", {}, [el("span", { text: item.method + " " }), el("span", { cls: "url", text: item.url }),
        item.operation ? el("span", { cls: "op", id: "operation", text: item.operation }) : null]));
      main.appendChild(el("p", { id: "summary", text: "status " + item.status + " · " + item.durationMs.toFixed(1) + " ms upstream · recorded " + item.recordedAt + " · cassette " + item.cassette + " · key " + item.key + " #" + item.sequence }));
      const curl = curlCommand(item);
      main.appendChild(el("p", {}, [
        el("button", { id: "copy-curl", text: "Copy as curl", onclick() {
          if (navigator.clipboard) navigator.clipboard.writeText(curl).catch(() => {});
          curlBox.hidden = false;
        } }),
        el("button", { id: "download", text: "Download response body", onclick() { download(item); } }),
      ]));
      const curlBox = el("pre", { id: "curl", text: curl });
      curlBox.hidden = true;
      main.appendChild(curlBox);
      main.appendChild(el("h2", { text: "Request" }));
      main.appendChild(headersTable(item.requestHeaders));
      if (item.requestBody) main.appendChild(bodyView(item.requestBody, "request-body"));
      main.appendChild(el("h2", { text: "Response" }));
      main.appendChild(headersTable(item.responseHeaders));
      main.appendChild(bodyView(item.responseBody, "response-body"));
    });
  }

  // One WebSocket conversation as a timeline: each message with its offset from the opening,
  // its direction, kind, size and payload (a JSON tree, text, or hex for binary), then how it ended.
  function conversationView(params) {
    return data.conversation(params.get("id")).then((item) => {
      if (item.grpc) return callView(item);
      main.appendChild(backLink());
      main.appendChild(el("h1", {}, [el("span", { text: "WebSocket " }), el("span", { cls: "url", text: item.url })]));
      const extras = [item.subprotocol ? "subprotocol " + item.subprotocol : "", item.extensions ? "extensions " + item.extensions : ""].filter(Boolean);
      main.appendChild(el("p", { id: "summary", text: item.messages + (item.messages === 1 ? " message" : " messages") + " · recorded " + item.recordedAt +
        " · cassette " + item.cassette + " · key " + item.key + " #" + item.sequence + (extras.length ? " · " + extras.join(" · ") : "") }));
      main.appendChild(el("h2", { text: "Handshake" }));
      main.appendChild(headersTable(item.requestHeaders));
      main.appendChild(el("h2", { text: "Messages" }));
      // Operations carried on the socket (subscription Countdown, rpc add): each message names its
      // operation, and a filter keeps one operation's messages.
      const operations = item.operations || [];
      const operationName = (number) => { const found = operations.find((op) => op.number === number); return found ? "#" + number + " " + found.operation : ""; };
      if (operations.length) {
        const filter = el("select", { id: "operation-filter" }, [el("option", { value: "", text: "all messages" })].concat(
          operations.map((op) => el("option", { value: String(op.number), text: "#" + op.number + " " + op.operation + (op.variables ? " " + JSON.stringify(op.variables) : "") }))));
        filter.addEventListener("change", () => {
          for (const entry of main.querySelectorAll("#timeline li.message[data-operation]")) entry.hidden = filter.value !== "" && entry.dataset.operation !== filter.value;
        });
        main.appendChild(el("p", { cls: "operation-filter" }, [el("label", { for: "operation-filter", text: "Operation " }), filter]));
      }
      const timeline = el("ol", { id: "timeline", cls: "timeline" });
      for (const message of item.timeline) {
        const heading = el("p", { cls: "message-head" }, [
          el("span", { cls: "offset", text: "+" + message.offsetMs.toFixed(1) + " ms" }),
          el("span", { cls: "direction", text: message.direction === "client" ? "client → server" : "server → client" }),
          el("span", { cls: "tag kind", text: message.kind }),
          message.operation ? el("span", { cls: "tag operation", text: operationName(message.operation) }) : null,
          el("span", { cls: "note", text: message.size + (message.size === 1 ? " byte" : " bytes") + (message.frames > 1 ? " in " + message.frames + " frames" : "") }),
        ].filter(Boolean));
        const entry = el("li", { cls: "message " + message.direction + " " + message.kind }, [heading]);
        entry.dataset.operation = message.operation ? String(message.operation) : "";
        if (message.close !== undefined) entry.appendChild(el("p", { cls: "close", text: "close " + message.close }));
        else if (message.size > 0) entry.appendChild(bodyView(Object.assign({ contentType: null }, message.payload), null));
        timeline.appendChild(entry);
      }
      const end = item.end;
      const ending = { closed: "the " + end.by + " closed the connection" + (end.code !== null && end.code !== undefined ? " with code " + end.code : " without a code") + (end.reason ? ", reason \u201c" + end.reason + "\u201d" : ""),
        dropped: "the " + end.by + "'s connection went away without a close frame (dropped)",
        cut: "cut: the recorder stopped before the conversation ended; what was received is kept" }[end.kind] || end.summary;
      timeline.appendChild(el("li", { cls: "message end " + end.kind, id: "conversation-end" }, [el("span", { cls: "tag " + end.kind, text: end.kind }), el("span", { text: " " + ending })]));
      main.appendChild(timeline);
    });
  }

  // Back to the list this was opened from (its filter kept), or the whole list.
  function backLink() {
    return el("p", { cls: "back" }, [el("a", { id: "back", href: listPlace ? listPlace.hash : "#/interactions", text: "\u2190 Back to the list" })]);
  }

  function headersTable(headers) {
    return el("table", { cls: "headers" }, [el("tbody", {}, headers.map(([name, value]) => el("tr", {}, [el("th", { text: name }), el("td", { text: value })])))]);
  }

  function bytesOf(body) {
    if (body.encoding !== "base64") return new TextEncoder().encode(body.text);
    const binary = atob(body.text);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  }

  // `id`: null for a message's payload, whose size the timeline already gives (so no note but a cut).
  function bodyView(body, id) {
    const box = el("section", id ? { id: id, cls: "body" } : { cls: "body" });
    const note = body.size + " bytes" + (body.contentType ? " · " + body.contentType : "") + (body.truncated ? " · shown up to " + body.shown + " bytes" : "");
    if (id || body.truncated) box.appendChild(el("p", { cls: "note", text: note }));
    if (body.size === 0) return box;
    if (body.encoding === "base64" && /^image\//.test(body.contentType || "") && !/svg/.test(body.contentType)) {
      box.appendChild(el("img", { src: "data:" + body.contentType + ";base64," + body.text, alt: "response image" }));
      return box;
    }
    if (body.encoding === "base64") {
      box.appendChild(el("pre", { cls: "hex", text: hex(bytesOf(body)) }));
      return box;
    }
    let parsed;
    try { parsed = JSON.parse(body.text); } catch (error) { parsed = undefined; }
    if (parsed !== undefined && typeof parsed === "object" && parsed !== null) {
      box.appendChild(jsonTree(parsed, 0));
    } else {
      box.appendChild(el("pre", { cls: "text", text: body.text }));
    }
    return box;
  }

  function jsonTree(value, depth) {
    if (value === null || typeof value !== "object") {
      return el("span", { cls: "json-" + (value === null ? "null" : typeof value), text: JSON.stringify(value) });
    }
    const entries = Array.isArray(value) ? value.map((item, index) => [String(index), item]) : Object.entries(value);
    const details = el("details", { cls: "json" });
    if (depth < 2) details.open = true;
    details.appendChild(el("summary", { text: Array.isArray(value) ? "[" + entries.length + "]" : "{" + entries.length + "}" }));
    for (const [key, item] of entries) {
      details.appendChild(el("div", { cls: "json-entry" }, [el("span", { cls: "json-key", text: key + ": " }), jsonTree(item, depth + 1)]));
    }
    return details;
  }

  function hex(bytes) {
    const lines = [];
    for (let offset = 0; offset < bytes.length; offset += 16) {
      const slice = Array.from(bytes.slice(offset, offset + 16));
      lines.push(offset.toString(16).padStart(8, "0") + "  " + slice.map((b) => b.toString(16).padStart(2, "0")).join(" ").padEnd(48) + "  " +
        slice.map((b) => (b >= 32 && b < 127 ? String.fromCharCode(b) : ".")).join(""));
    }
    return lines.join("\n");
  }

  function quote(text) { return "'" + String(text).replace(/'/g, "'\\''") + "'"; }
  function curlCommand(item) {
    const parts = ["curl", "-X", item.method, quote(item.url)];
    for (const [name, value] of item.requestHeaders) parts.push("-H", quote(name + ": " + value));
    if (item.requestBody && item.requestBody.encoding !== "base64") parts.push("--data-binary", quote(item.requestBody.text));
    return parts.join(" ");
  }

  function download(item) {
    const blob = new Blob([bytesOf(item.responseBody)], { type: item.responseBody.contentType || "application/octet-stream" });
    const url = URL.createObjectURL(blob);
    const link = el("a", { href: url, download: "interaction-" + item.id + ".body" });
    document.body.appendChild(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }

  // Live: each request the proxy serves, pushed over Server-Sent Events; the report shows its run.
  // Rows are added once per frame, newest first, and only the newest LIVE_ROWS stay in the
  // page, so a page following a busy proxy stays responsive (the feed itself drops what a
  // page cannot take: see docs/ui.md).
  function liveView(params) {
    const tag = params.get("tag") || "";
    const session = params.get("session") || "";
    main.appendChild(el("h1", { text: report ? "Requests of the run" : "Live" }));
    const tags = el("p", { id: "tags" }, ["", "hit", "recorded", "miss", "passthrough", "error"].map((name) =>
      el("a", Object.assign({ href: "#/live?" + new URLSearchParams(clean({ tag: name, session: session })).toString(), cls: "tag " + (name || "all") + (name === tag ? " active" : ""), text: name || "all" },
        name === tag ? { "aria-current": "true" } : {}))));
    main.appendChild(tags);
    const form = el("form", { id: "live-filter", onsubmit(event) {
      event.preventDefault();
      go("live", { tag: tag, session: form.querySelector("input").value.trim() });
    } }, [
      el("label", {}, [el("span", { text: "session" }), el("input", { name: "session", value: session, placeholder: "any", list: "seen-sessions" })]),
      el("button", { type: "submit", text: "Filter" }),
    ]);
    const seen = el("datalist", { id: "seen-sessions" });
    form.appendChild(seen);
    main.appendChild(form);
    const status = el("p", { id: "live-status", cls: "note" });
    main.appendChild(status);
    // Until the first request the count is one line saying none came, and the table is hidden.
    const counter = el("p", { id: "live-count", cls: "note", text: "no requests" + (tag ? " tagged " + tag : "") + (session ? " of session " + session : "") + (report ? "" : " yet") });
    main.appendChild(counter);
    const list = el("tbody");
    const liveTable = el("table", { id: "live" }, [el("thead", {}, [el("tr", {}, ["Time", "Tag", "Method", "Target", "Status", "Session"].map((h) => el("th", { text: h })))]), list]);
    liveTable.hidden = true;
    main.appendChild(liveTable);
    // The misses' boxes have h3 titles: their h2 is shown with the first miss.
    const missesHeading = el("h2", { id: "misses-heading", text: "Misses" });
    missesHeading.hidden = true;
    main.appendChild(missesHeading);
    const misses = el("section", { id: "misses", "aria-labelledby": "misses-heading" });
    main.appendChild(misses);
    const sessions = new Set();
    let queued = [];
    let shown = 0;
    let scheduled = false;
    function add(event) {
      if (event.session && !sessions.has(event.session)) {
        sessions.add(event.session);
        seen.appendChild(el("option", { value: event.session }));
      }
      if (tag && event.tag !== tag) return;
      if (session && (event.session || "") !== session) return;
      queued.push(event);
      if (!scheduled) {
        scheduled = true;
        requestAnimationFrame(flush);
      }
    }
    function flush() {
      scheduled = false;
      const events = queued.slice(-LIVE_ROWS);
      queued = [];
      shown += events.length;
      const rows = document.createDocumentFragment();
      for (let index = events.length - 1; index >= 0; index--) {
        const event = events[index];
        rows.appendChild(el("tr", { cls: "live-row " + event.tag }, [
          el("td", { text: (event.at || "").slice(11, 23) }),
          el("td", {}, [el("span", { cls: "tag " + event.tag, text: event.tag })]),
          el("td", { text: event.method }),
          el("td", { cls: "url", text: event.target }),
          el("td", { cls: statusClass(event.status), text: String(event.status) + (event.grpc ? " gRPC " + event.grpc.status : "") }),
          el("td", {}, event.session ? [el("a", { href: "#/live?session=" + encodeURIComponent(event.session), text: event.session })] : []),
        ]));
        if (event.miss) {
          missesHeading.hidden = false;
          misses.insertBefore(missView(event), misses.firstChild);
          while (misses.childElementCount > LIVE_MISSES) misses.lastChild.remove();
        }
      }
      list.insertBefore(rows, list.firstChild);
      liveTable.hidden = false;
      while (list.childElementCount > LIVE_ROWS) list.lastChild.remove();
      counter.textContent = shown + (shown === 1 ? " request" : " requests") + (shown > LIVE_ROWS ? ", the newest " + LIVE_ROWS + " shown" : "") + (session ? " of session " + session : "");
    }
    if (report) {
      const run = report.run || { requests: [], unused: [] };
      status.textContent = run.requests.length + " requests" + (run.command ? " made by " + run.command : "");
      run.requests.forEach(add);
      if (run.unused && run.unused.length) {
        main.appendChild(el("h2", { text: "Unused recordings (" + run.unused.length + ")" }));
        main.appendChild(el("ul", { id: "unused" }, run.unused.map((key) => el("li", { text: key }))));
      }
      return Promise.resolve();
    }
    status.textContent = "connecting…";
    liveSource = new EventSource("api/live");
    liveSource.onopen = () => { status.textContent = "following the proxy's requests as they are served"; };
    liveSource.onerror = () => { status.textContent = "disconnected; retrying…"; };
    liveSource.addEventListener("request", (message) => add(JSON.parse(message.data)));
    liveSource.addEventListener("dropped", (message) => {
      status.textContent = JSON.parse(message.data).count + " updates were dropped because this page fell behind";
    });
    return Promise.resolve();
  }

  function missView(event) {
    return missBox(event.method + " " + event.target, event.miss.summary, event.miss.nearest);
  }

  function missBox(title, summary, nearestRecordings) {
    const box = el("div", { cls: "miss" }, [
      el("h3", {}, [el("span", { cls: "tag miss", text: "miss" }), el("span", { cls: "url", text: " " + title })]),
      el("p", { cls: "note", text: summary }),
    ]);
    for (const nearest of nearestRecordings) {
      box.appendChild(el("div", { cls: "nearest" }, [
        el("p", {}, [el("span", { text: "nearest recording: " }), el("code", { cls: "nearest-key", text: nearest.key })]),
        el("ul", { cls: "why-not" }, nearest.differences.map((difference) => el("li", { text: difference }))),
      ]));
    }
    return box;
  }

  // Sessions: each live session of the proxy (and the last ones that ended) with its counts,
  // its misses and why they missed, its unused recordings and its journal.
  function sessionsView() {
    return data.sessions().then((body) => {
      main.appendChild(el("h1", { text: "Sessions" }));
      if (!body.live) {
        main.appendChild(el("p", { id: "sessions-none", cls: "note", text: report
          ? "No sessions here: a store keeps no sessions, they live on a running proxy. cassette run --report OUT.html -- COMMAND writes a run's requests and sessions."
          : "cassette ui serves a store: sessions live on a running proxy (record, replay or run), at its /__cassette/ui/." }));
        return;
      }
      if (body.sessions.length === 0) {
        main.appendChild(el("p", { id: "sessions-none", cls: "note", text: "No sessions yet: a test opens one with POST /__cassette/sessions (docs/sessions.md)." }));
        return;
      }
      const rows = body.sessions.map((item) => {
        const summary = item.summary;
        const missed = summary.missed.reduce((count, miss) => count + miss.count, 0);
        return el("tr", {}, [
          // The hash holds the view, so the link scrolls to the session instead of navigating.
          el("td", {}, [el("a", { href: "#/sessions", text: item.id, onclick(event) {
            event.preventDefault();
            const section = document.getElementById("session-" + item.id);
            section.scrollIntoView();
            section.focus({ preventScroll: true });
          } })]),
          el("td", { text: stateText(item.state) }), el("td", { text: item.cassette }), el("td", { text: modeText(item.mode) }),
          el("td", { cls: "num", text: String(summary.served) }), el("td", { cls: "num", text: String(summary.recorded) }),
          el("td", { cls: "num", text: String(missed) }), el("td", { cls: "num", text: unusedText(summary.unused.length, (summary.unusedGRPCMethods || []).length) }),
        ]);
      });
      main.appendChild(table(["Session", "State", "Cassette", "Mode", "Served", "Recorded", "Missed", "Unused"], rows, "sessions"));
      for (const item of body.sessions) main.appendChild(sessionView(item));
    });
  }

  // A cassette whose unused keys nothing can know: a store whose replays of it were never tracked.
  function unknown(cassette) { return cassette.unused === null || cassette.unused === undefined; }

  // Unused recordings, and the gRPC methods no call used, which the server counts apart (a
  // method is not a recording): "2", "3 gRPC methods", "2 + 3 gRPC methods".
  function unusedText(recordings, methods) {
    if (!methods) return String(recordings);
    const named = methods + (methods === 1 ? " gRPC method" : " gRPC methods");
    return recordings ? recordings + " + " + named : named;
  }

  // A session's mode as the API spells it (`none`, `once`, `missing`, `all`) said in words: `none`
  // read as "no mode". A run's own (`replay`, `record`, `missing`) reads as it is.
  function modeText(mode) {
    return { none: "replay only", once: "record once", missing: "record missing", all: "record all" }[mode] || mode;
  }

  // In a report a session still open when the run ended is not live any more.
  function stateText(state) { return report && state === "live" ? "open when the run ended" : state; }

  function sessionView(item) {
    const summary = item.summary;
    const facts = ["cassette " + item.cassette, item.mode ? modeText(item.mode) : "", item.baseURL, summary.served + " served, " + summary.recorded + " recorded"];
    const box = el("section", { cls: "session", id: "session-" + item.id, tabindex: "-1" }, [
      el("h2", {}, [el("span", { text: (item.title || "Session " + item.id) + " " }), el("span", { cls: "tag", text: stateText(item.state) })]),
      el("p", { cls: "note", text: facts.filter(Boolean).join(" · ") }),
    ]);
    if (item.id === "run") box.appendChild(el("p", { cls: "note", text: "Requests made in a session are in that session's journal below." }));
    if (item.state === "live" && !report) box.appendChild(el("p", {}, [el("a", { href: "#/live?session=" + encodeURIComponent(item.id), text: "Follow its requests live" })]));
    for (const miss of summary.missed) {
      box.appendChild(missBox(miss.key + (miss.count > 1 ? " (" + miss.count + " times)" : ""), miss.message, miss.nearest));
    }
    if (summary.unused.length) {
      box.appendChild(el("details", { cls: "unused" }, [
        el("summary", { text: "Unused recordings (" + summary.unused.length + ")" }),
        el("ul", {}, summary.unused.map((key) => el("li", { cls: "url", text: key }))),
      ]));
    }
    const methods = summary.unusedGRPCMethods || [];
    if (methods.length) {
      box.appendChild(el("details", { cls: "unused" }, [
        el("summary", { text: "Unused gRPC methods (" + methods.length + ")" }),
        el("ul", {}, methods.map((path) => el("li", { cls: "url", text: path }))),
      ]));
    }
    const journal = item.journal;
    const entries = journal.requests.map((entry) => el("tr", {}, [
      el("td", { text: (entry.at || "").slice(11, 23) }),
      el("td", {}, [el("span", { cls: "tag " + entry.source, text: entry.source })]),
      el("td", { text: entry.method }),
      el("td", { cls: "url", text: entry.path + (entry.query ? "?" + entry.query : "") }),
      el("td", { cls: statusClass(entry.status), text: String(entry.status) + (entry.grpc ? " gRPC " + entry.grpc.status : "") }),
      el("td", { cls: "num", text: entry.durationMs.toFixed(2) + " ms" }),
    ]));
    // A session that served nothing yet says so in a line, not with a table of headings only.
    box.appendChild(el("details", { cls: "journal", open: "" }, [
      el("summary", { text: "Journal (" + journal.count + (journal.dropped ? ", " + journal.dropped + " older left out" : "") + ")" }),
      entries.length ? table(["Time", "Tag", "Method", "Target", "Status", "Time taken"], entries, "journal-" + item.id)
        : el("p", { cls: "note", id: "journal-" + item.id, text: report ? "no requests" : "no requests yet" }),
    ]));
    return box;
  }

  // Drift: `cassette diff --fixtures DIR` per endpoint, and `cassette audit`'s findings (masked).
  function driftView() {
    return data.findings().then((body) => {
      main.appendChild(el("h1", { text: "Drift" }));
      const drift = body.drift;
      if (!drift) {
        main.appendChild(el("p", { id: "drift-none", cls: "note", text: "No fixtures to compare with: give --fixtures DIR to cassette ui, report or run (the comparison cassette diff --fixtures DIR makes)." }));
      } else {
        const summary = drift.summary;
        const compared = drift.endpoints.length;
        main.appendChild(el("p", { id: "drift-summary", text: "Fixtures in " + drift.fixtures + " compared with " + compared + (compared === 1 ? " endpoint" : " endpoints") + ": " +
          summary.errors + " errors, " + summary.warnings + " warnings, " + summary.notes + " notes" + (summary.endpoints ? " in " + summary.endpoints + (summary.endpoints === 1 ? " endpoint" : " endpoints") : "") }));
        const rows = [];
        for (const entry of drift.endpoints) {
          const findings = entry.findings || [];
          rows.push(el("tr", { cls: "endpoint" + (findings.length ? "" : " clean") }, [
            el("td", { cls: "url", text: entry.endpoint || "(no recording)" }),
            el("td", { text: entry.fixture || "(no fixture)" }),
            el("td", { cls: "num", text: String(entry.recordings) }),
            el("td", { text: findings.length ? findings.length + (findings.length === 1 ? " finding" : " findings") : "clean" }),
          ]));
          for (const finding of findings) {
            rows.push(el("tr", { cls: "finding " + finding.severity }, [
              el("td", {}, [el("span", { cls: "tag " + finding.severity, text: finding.severity }), el("code", { text: finding.path })]),
              el("td", { text: finding.rule }),
              el("td", { cls: "note", text: "API " + finding.expected + " · fixture " + finding.actual }),
              el("td", { text: finding.message }),
            ]));
          }
        }
        main.appendChild(table(["Endpoint", "Fixture", "Recordings", "Findings"], rows, "drift"));
      }
      const audit = body.audit;
      main.appendChild(el("h2", { text: "Audit" }));
      if (!audit) {
        main.appendChild(el("p", { cls: "note", text: "No audit here; run cassette audit." }));
        return;
      }
      const read = [audit.interactions || !audit.conversations ? audit.interactions + (audit.interactions === 1 ? " interaction" : " interactions") : "",
        audit.conversations ? audit.conversations + (audit.conversations === 1 ? " conversation or gRPC call" : " conversations and gRPC calls") : ""].filter(Boolean).join(" and ");
      if (!audit.findings.length) {
        main.appendChild(el("p", { id: "audit-summary", text: "No findings in " + read }));
        return;
      }
      main.appendChild(el("p", { id: "audit-summary", text: audit.findings.length + " findings (" + audit.counts.high + " high, " + audit.counts.medium + " medium, " + audit.counts.low + " low) in " + read + "; values are masked" }));
      const rows = audit.findings.map((finding) => el("tr", {}, [
        el("td", {}, [el("span", { cls: "tag " + finding.severity, text: finding.severity })]),
        el("td", { text: finding.description }),
        el("td", {}, [el("code", { cls: "masked", text: finding.maskedValue })]),
        el("td", {}, [finding.id !== null && finding.id !== undefined
          ? el("a", { href: "#/interaction?id=" + finding.id, text: finding.cassette + " " + finding.key + " #" + finding.sequence })
          : el("span", { text: finding.cassette + " " + finding.key + " #" + finding.sequence }), el("span", { cls: "note", text: " " + finding.place })]),
        el("td", { cls: "note", text: finding.fix ? "add to cassette.json " + finding.fix + ", then cassette redact" : "no redaction rule reaches it" }),
      ]));
      main.appendChild(table(["Severity", "Finding", "Value", "Where", "Fix"], rows, "audit"));
    });
  }

  for (const link of document.querySelectorAll("nav a")) {
    if (report && link.dataset.view === "live" && !report.run) link.hidden = true;
  }
  if (report) {
    const banner = document.getElementById("source");
    banner.textContent = "report of " + report.store + " made " + report.generated;
  }
  window.addEventListener("hashchange", render);
  render();
})();