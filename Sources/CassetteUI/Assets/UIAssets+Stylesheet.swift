extension UIAssets {
    /// The page's stylesheet (`app.css`).
    static let stylesheet = ##"""
        body { font: 14px/1.4 system-ui, sans-serif; margin: 0; color: #1d2330; background: #f6f7f9; }
        header { display: flex; align-items: center; gap: 24px; padding: 8px 16px; background: #1d2330; color: #fff; }
        header strong { font-size: 16px; }
        nav a { color: #c9d1e0; margin-right: 16px; text-decoration: none; }
        nav a.active { color: #fff; border-bottom: 2px solid #6aa6ff; }
        #source { margin-left: auto; color: #9aa5b8; font-size: 12px; }
        main { padding: 16px; }
        h1 { font-size: 20px; margin: 4px 0 12px; }
        h2 { font-size: 16px; margin: 20px 0 6px; }
        table { border-collapse: collapse; width: 100%; background: #fff; }
        th, td { text-align: left; padding: 4px 8px; border-bottom: 1px solid #e3e6eb; vertical-align: top; }
        th { background: #eef1f5; font-weight: 600; }
        td.num { text-align: right; font-variant-numeric: tabular-nums; }
        td.url, span.url { font-family: ui-monospace, monospace; word-break: break-all; }
        span.op { display: inline-block; font-family: system-ui, sans-serif; font-size: 12px; background: #efe3fb; color: #5b2a86; border-radius: 8px; padding: 0 6px; margin: 0 6px 0 0; }
        h1 span.op { margin-left: 8px; vertical-align: middle; }
        tr.row { cursor: pointer; }
        tr.row:hover { background: #eef4ff; }
        table.headers th { width: 240px; font-family: ui-monospace, monospace; font-weight: normal; }
        table.headers td { font-family: ui-monospace, monospace; word-break: break-all; }
        .status.s2 { color: #17803d; } .status.s3 { color: #8a6d00; } .status.s4, .status.s5 { color: #c0392b; }
        form#filter { display: flex; flex-wrap: wrap; gap: 8px; align-items: end; margin-bottom: 8px; }
        form#filter label { display: flex; flex-direction: column; font-size: 12px; color: #555; }
        input { padding: 4px 6px; border: 1px solid #c5ccd6; border-radius: 4px; }
        button { padding: 4px 10px; border: 1px solid #8da2c0; border-radius: 4px; background: #fff; cursor: pointer; margin-right: 8px; }
        .pager { display: flex; gap: 12px; align-items: center; }
        div.scroller { height: calc(100vh - 230px); min-height: 260px; overflow-y: auto; background: #fff; border: 1px solid #e3e6eb; }
        table.virtual { table-layout: fixed; }
        table.virtual thead th { position: sticky; top: 0; z-index: 1; }
        table.virtual tr.row { height: 26px; }
        table.virtual tr.row td { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; padding-top: 0; padding-bottom: 0; }
        table.virtual tr.spacer td { padding: 0; border: 0; }
        table.virtual tr.loading td { color: #9aa5b8; }
        col.col-method { width: 80px; } col.col-status { width: 70px; } col.col-size { width: 90px; } col.col-age { width: 110px; } col.col-time { width: 90px; }
        pre { background: #fff; border: 1px solid #e3e6eb; padding: 8px; overflow: auto; max-height: 480px; white-space: pre-wrap; word-break: break-all; }
        pre.hex { white-space: pre; }
        .note { color: #667085; font-size: 12px; margin: 4px 0; }
        .body img { max-width: 100%; border: 1px solid #e3e6eb; }
        details.json { margin-left: 14px; font-family: ui-monospace, monospace; }
        details.json > summary { cursor: pointer; color: #667085; }
        .json-entry { margin-left: 14px; }
        .json-key { color: #7a3e9d; } .json-string { color: #17803d; } .json-number { color: #1f5fbf; } .json-boolean, .json-null { color: #c0392b; }
        .tag { display: inline-block; padding: 0 6px; border-radius: 8px; font-size: 12px; background: #e3e6eb; margin-right: 6px; text-decoration: none; color: #1d2330; }
        .tag.hit { background: #d5f2df; } .tag.recorded { background: #dbe8ff; } .tag.miss { background: #ffd9d4; }
        .tag.passthrough { background: #fff1c2; } .tag.error { background: #f5c6cb; } .tag.active { outline: 2px solid #6aa6ff; }
        div.miss { background: #fff; border: 1px solid #f0b4ab; border-radius: 6px; padding: 8px 12px; margin: 12px 0; }
        div.miss h3 { font-size: 14px; margin: 0 0 4px; }
        .why-not li { font-family: ui-monospace, monospace; }
        .error { color: #c0392b; }
        form#live-filter { display: flex; gap: 8px; align-items: end; margin: 4px 0 8px; }
        form#live-filter label { display: flex; flex-direction: column; font-size: 12px; color: #555; }
        section.session { background: #fff; border: 1px solid #e3e6eb; border-radius: 6px; padding: 4px 12px 8px; margin: 16px 0; }
        details.journal > summary, details.unused > summary { cursor: pointer; margin: 6px 0; }
        .tag.error, .tag.high { background: #f5c6cb; } .tag.warning, .tag.medium { background: #fff1c2; } .tag.note, .tag.low { background: #e3e6eb; }
        tr.endpoint td { background: #eef1f5; font-weight: 600; } tr.endpoint.clean td { font-weight: normal; color: #667085; }
        code.masked { font-family: ui-monospace, monospace; }
        ol.timeline { list-style: none; padding: 0; margin: 0; }
        li.message { background: #fff; border: 1px solid #e3e6eb; border-left: 4px solid #8da2c0; border-radius: 4px; padding: 4px 10px; margin: 6px 0; }
        li.message.client { margin-right: 15%; border-left-color: #6aa6ff; } li.message.server { margin-left: 15%; border-left-color: #17803d; }
        li.message.end { border-left-color: #667085; } li.message.end.cut, li.message.end.dropped { border-left-color: #c0392b; }
        p.message-head { margin: 2px 0; display: flex; gap: 12px; align-items: baseline; }
        span.offset { font-family: ui-monospace, monospace; color: #667085; min-width: 90px; } span.direction { font-weight: 600; }
        .tag.cut, .tag.dropped { background: #ffd9d4; } .tag.closed { background: #d5f2df; }
        """##
}
