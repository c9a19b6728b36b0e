// The HTML report's stylesheet and script, inlined into every page (HtmlReport.cpp). The script
// reads the page's JSON (<script id="sl-data">) and draws each process's timeline on a canvas.
// It must stay usable at ~100k ops: per lane the ops are sorted by start with a running maximum
// of their ends, so the visible ones are found by binary search, and ops narrower than a pixel
// are merged into one mark per pixel column. Strings from the data are only ever set with
// textContent. When done it sets <body data-rendered="ok"> ("error" on any exception), which the
// headless-Chromium test reads; "#selftest" in the URL also exercises zoom, hover and selection.
namespace sl::runtime {

extern const char kHtmlReportCss[] = R"CSS(
:root { --fg:#1d2330; --muted:#5b6474; --line:#d9dde5; --bg:#fff; --panel:#f5f7fa; --hit:#fff3b0; }
* { box-sizing: border-box; }
body { margin: 0 auto; padding: 16px 24px 48px; max-width: 1600px; color: var(--fg); background: var(--bg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
h1 { font-size: 22px; margin: 4px 0 12px; }
h2 { font-size: 18px; margin: 28px 0 6px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.summary { display: flex; flex-wrap: wrap; gap: 10px; }
.stat { background: var(--panel); border: 1px solid var(--line); border-radius: 6px; padding: 6px 12px; min-width: 96px; }
.stat .v { display: block; font-size: 20px; font-weight: 600; }
.stat .k { color: var(--muted); font-size: 12px; }
.stat.warn { border-color: #d97706; background: #fff7ed; }
.note { margin: 4px 0; padding: 4px 8px; border-left: 3px solid #d97706; background: #fff7ed; }
.hint, .meta { color: var(--muted); font-size: 12px; margin: 2px 0 8px; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid var(--line); padding: 6px 8px; text-align: left; vertical-align: top; }
th { background: var(--panel); font-weight: 600; font-size: 12px; }
table.overlap { width: auto; }
table.overlap td { font-variant-numeric: tabular-nums; }
tr.finding { cursor: pointer; }
tr.finding:hover { background: #f8fafc; }
tr.finding.selected { background: #eef4ff; outline: 2px solid #3b82f6; }
td.rule { font-weight: 600; white-space: nowrap; }
.sev { font-weight: 400; font-size: 11px; color: var(--muted); }
.sev-error .sev { color: #b91c1c; } .sev-warning .sev { color: #b45309; }
.where { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.msg { margin: 2px 0 6px; overflow-wrap: anywhere; }
.related { font-size: 12px; color: var(--muted); overflow-wrap: anywhere; }
.status { font-size: 12px; color: #1d4ed8; }
pre.src { margin: 4px 0; padding: 4px 0; background: var(--panel); border: 1px solid var(--line); border-radius: 4px;
  font: 12px/1.4 ui-monospace, "DejaVu Sans Mono", monospace; overflow-x: auto; max-width: 900px; }
pre.src .line { display: block; padding: 0 8px; white-space: pre; }
pre.src .line.hit { background: var(--hit); }
pre.src .ln { display: inline-block; width: 4em; color: var(--muted); user-select: none; }
.nosrc { font-size: 12px; color: var(--muted); font-style: italic; }
td.measured { width: 340px; min-width: 260px; }
ul.evidence { margin: 0; padding-left: 16px; font-size: 12px; font-variant-numeric: tabular-nums; overflow-wrap: anywhere; }
ul.evidence li { margin: 1px 0; }
.timeline { position: relative; border: 1px solid var(--line); border-radius: 4px; margin: 8px 0; user-select: none; }
.timeline canvas { display: block; width: 100%; cursor: grab; }
.timeline canvas.dragging { cursor: grabbing; }
.tlbar { display: flex; gap: 14px; align-items: center; padding: 4px 8px; font-size: 12px; color: var(--muted);
  border-bottom: 1px solid var(--line); background: var(--panel); flex-wrap: wrap; }
.tlbar button { font: inherit; padding: 1px 8px; }
.swatch { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; vertical-align: -1px; }
#tooltip { position: fixed; z-index: 10; pointer-events: none; max-width: 560px; background: #111827; color: #f9fafb;
  padding: 6px 8px; border-radius: 4px; font-size: 12px; box-shadow: 0 2px 8px rgba(0,0,0,.25); }
#tooltip div { overflow-wrap: anywhere; }
#tooltip .tname { font-weight: 600; }
)CSS";

extern const char kHtmlReportJs[] = R"JS(
(function () {
  'use strict';
  var body = document.body;
  function fail(msg) {
    body.setAttribute('data-rendered', 'error');
    body.setAttribute('data-error', String(msg));
  }
  window.addEventListener('error', function (e) { fail(e.message); });

  var KINDS = [
    { name: 'kernel', color: '#4e79a7' },
    { name: 'copy', color: '#f28e2b' },
    { name: 'memset', color: '#59a14f' },
    { name: 'blocking call', color: '#b07aa1' }
  ];
  var HIT = '#e11d48';
  var UNTIMED = '#e2e5ea';  // stream lanes outside the GPU timing windows (sampled timing)
  var LABEL_W = 190, AXIS_H = 22, LANE_H = 30, LANE_GAP = 6, MARK_H = 18;
  // Finding markers by severity (the strip above the lanes).
  var SEVERITY = { error: '#c0392b', warning: '#d97706', note: '#6b7280' };
  var onMark = null;  // set by main(): selects finding i

  function fmtDur(ns) {
    if (ns >= 1e9) return (ns / 1e9).toFixed(3) + ' s';
    if (ns >= 1e6) return (ns / 1e6).toFixed(3) + ' ms';
    if (ns >= 1e3) return (ns / 1e3).toFixed(2) + ' \u00b5s';
    return Math.round(ns) + ' ns';
  }
  // Axis labels: the unit of the tick step, with as many decimals as the step needs.
  function fmtTick(ns, step) {
    var units = [[1e9, 's'], [1e6, 'ms'], [1e3, '\u00b5s'], [1, 'ns']], u = units[3];
    for (var i = 0; i < units.length; i++) if (step >= units[i][0] || i === 3) { u = units[i]; break; }
    var decimals = Math.max(0, Math.min(3, -Math.floor(Math.log10(step / u[0]) + 1e-9)));
    return (ns / u[0]).toFixed(decimals) + ' ' + u[1];
  }
  function lowerBound(arr, n, value) {  // first i with arr[i] >= value
    var lo = 0, hi = n;
    while (lo < hi) { var mid = (lo + hi) >> 1; if (arr[mid] < value) lo = mid + 1; else hi = mid; }
    return lo;
  }
  function niceStep(span, maxTicks) {
    var raw = span / maxTicks, p = Math.pow(10, Math.floor(Math.log10(raw)));
    var m = raw / p;
    return p * (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10);
  }

  // One lane's items (ops or calls) in start order, with the running maximum of their ends so
  // that the first item that can reach a time is found by binary search.
  function Lane(label, type) {
    this.label = label; this.type = type;
    this.idx = []; this.maxEnd = null;
  }

  function Timeline(proc, pi, host) {
    this.proc = proc; this.pi = pi; this.host = host;
    var ops = proc.ops, calls = proc.calls, self = this;
    this.lanes = proc.lanes.map(function (l) { return new Lane(l.label, l.type); });
    // Items: ops first, then calls; item i < nOps is op i, else call i - nOps.
    this.nOps = ops.t.length;
    var n = this.nOps + calls.t.length;
    this.start = new Float64Array(n); this.dur = new Float64Array(n);
    this.kind = new Uint8Array(n); this.hit = new Uint8Array(n);
    for (var i = 0; i < this.nOps; i++) {
      this.start[i] = ops.t[i]; this.dur[i] = ops.d[i]; this.kind[i] = ops.k[i];
      this.lanes[ops.l[i]].idx.push(i);
    }
    for (var j = 0; j < calls.t.length; j++) {
      var k = this.nOps + j;
      this.start[k] = calls.t[j]; this.dur[k] = calls.d[j]; this.kind[k] = 3;
      this.lanes[calls.l[j]].idx.push(k);
    }
    this.lanes.forEach(function (lane) {
      lane.idx.sort(function (a, b) { return self.start[a] - self.start[b]; });
      lane.maxEnd = new Float64Array(lane.idx.length);
      var m = -Infinity;
      for (var q = 0; q < lane.idx.length; q++) {
        var it = lane.idx[q];
        m = Math.max(m, self.start[it] + self.dur[it]);
        lane.maxEnd[q] = m;
      }
    });
    this.windows = proc.windows || null;  // sampled GPU timing: when GPU work was timed
    this.marks = proc.marks && proc.marks.t.length ? proc.marks : null;  // the findings, by first call
    this.top = AXIS_H + (this.marks ? MARK_H : 0);
    this.end = Math.max(proc.end, 1);
    this.v0 = 0; this.v1 = this.end;
    this.build();
  }

  Timeline.prototype.build = function () {
    var bar = document.createElement('div');
    bar.className = 'tlbar';
    KINDS.forEach(function (k) {
      var s = document.createElement('span');
      var sw = document.createElement('span');
      sw.className = 'swatch'; sw.style.background = k.color;
      s.appendChild(sw); s.appendChild(document.createTextNode(k.name));
      bar.appendChild(s);
    });
    var hitKey = document.createElement('span');
    var hsw = document.createElement('span');
    hsw.className = 'swatch'; hsw.style.background = HIT;
    hitKey.appendChild(hsw); hitKey.appendChild(document.createTextNode('selected finding'));
    bar.appendChild(hitKey);
    if (this.windows) {
      var untimed = document.createElement('span');
      var usw = document.createElement('span');
      usw.className = 'swatch'; usw.style.background = UNTIMED;
      untimed.appendChild(usw); untimed.appendChild(document.createTextNode('GPU not timed (sampled)'));
      bar.appendChild(untimed);
    }
    var help = document.createElement('span');
    help.textContent = 'wheel: zoom · drag: pan · double-click: whole run';
    bar.appendChild(help);
    var reset = document.createElement('button');
    reset.textContent = 'whole run';
    var self = this;
    reset.addEventListener('click', function () { self.v0 = 0; self.v1 = self.end; self.draw(); });
    bar.appendChild(reset);
    this.host.appendChild(bar);
    this.canvas = document.createElement('canvas');
    this.host.appendChild(this.canvas);
    if (this.lanes.length === 0) {
      var p = document.createElement('p');
      p.className = 'hint'; p.textContent = 'Nothing recorded to draw.';
      this.host.appendChild(p);
    }
    this.attach();
  };

  Timeline.prototype.plotWidth = function () { return Math.max(10, this.cssWidth - LABEL_W); };
  Timeline.prototype.xOf = function (t) { return LABEL_W + (t - this.v0) * this.plotWidth() / (this.v1 - this.v0); };
  Timeline.prototype.tOf = function (x) { return this.v0 + (x - LABEL_W) * (this.v1 - this.v0) / this.plotWidth(); };
  Timeline.prototype.laneY = function (li) { return this.top + li * (LANE_H + LANE_GAP) + LANE_GAP / 2; };

  Timeline.prototype.draw = function () {
    var dpr = window.devicePixelRatio || 1;
    this.cssWidth = Math.max(300, this.host.clientWidth);
    var h = this.top + this.lanes.length * (LANE_H + LANE_GAP) + 4;
    this.canvas.width = Math.round(this.cssWidth * dpr);
    this.canvas.height = Math.round(h * dpr);
    this.canvas.style.height = h + 'px';
    var ctx = this.canvas.getContext('2d');
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, this.cssWidth, h);
    ctx.font = '11px system-ui, sans-serif';
    ctx.textBaseline = 'middle';
    this.drawAxis(ctx, h);
    this.drawMarks(ctx);
    var hits = [];
    for (var li = 0; li < this.lanes.length; li++) this.drawLane(ctx, li, hits);
    // Selected items on top, at least 3 px wide so that a single call stays visible.
    ctx.fillStyle = HIT;
    for (var q = 0; q < hits.length; q++) {
      var r = hits[q];
      ctx.fillRect(r[0] - (r[1] < 3 ? (3 - r[1]) / 2 : 0), r[2] - 2, Math.max(3, r[1]), LANE_H + 4);
    }
  };

  Timeline.prototype.drawAxis = function (ctx, h) {
    var span = this.v1 - this.v0, step = niceStep(span, Math.max(2, this.plotWidth() / 110));
    ctx.fillStyle = '#f5f7fa';
    ctx.fillRect(0, 0, this.cssWidth, AXIS_H);
    ctx.strokeStyle = '#e5e7eb'; ctx.fillStyle = '#5b6474';
    ctx.beginPath();
    for (var t = Math.ceil(this.v0 / step) * step; t <= this.v1; t += step) {
      var x = Math.round(this.xOf(t)) + 0.5;
      ctx.moveTo(x, AXIS_H - 4); ctx.lineTo(x, h);
      ctx.fillText(fmtTick(t, step), x + 3, AXIS_H / 2);
    }
    ctx.stroke();
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, AXIS_H, LABEL_W, h - AXIS_H);
  };

  // Each finding as a triangle at its line's first call, its rule beside it where there is room.
  Timeline.prototype.drawMarks = function (ctx) {
    if (!this.marks) return;
    var findings = this.findings || [], lastLabel = -Infinity, y0 = AXIS_H + 2;
    ctx.fillStyle = '#1d2330';
    ctx.fillText('findings', 6, AXIS_H + MARK_H / 2);
    for (var q = 0; q < this.marks.t.length; q++) {
      var x = this.xOf(this.marks.t[q]);
      if (x < LABEL_W - 1 || x > this.cssWidth) continue;
      var f = findings[this.marks.f[q]] || {};
      ctx.fillStyle = SEVERITY[f.severity] || SEVERITY.note;
      ctx.beginPath();
      ctx.moveTo(x - 5, y0); ctx.lineTo(x + 5, y0); ctx.lineTo(x, y0 + MARK_H - 6);
      ctx.closePath(); ctx.fill();
      if (x - lastLabel > 56 && f.rule) {
        ctx.fillText(f.rule, x + 7, AXIS_H + MARK_H / 2);
        lastLabel = x;
      }
    }
  };

  // The marker under (x, y), as an index into this.marks; -1 none.
  Timeline.prototype.markAt = function (x, y) {
    if (!this.marks || y < AXIS_H || y >= this.top) return -1;
    var best = -1, bestDist = 7;
    for (var q = 0; q < this.marks.t.length; q++) {
      var d = Math.abs(this.xOf(this.marks.t[q]) - x);
      if (d < bestDist) { bestDist = d; best = q; }
    }
    return best;
  };

  Timeline.prototype.drawLane = function (ctx, li, hits) {
    var lane = this.lanes[li], y = this.laneY(li), n = lane.idx.length;
    var background = lane.type === 'thread' ? '#faf5fb' : '#f7f9fc';
    if (lane.type === 'stream' && this.windows) {
      // Only the windows were timed: elsewhere an empty lane says nothing about the GPU.
      ctx.fillStyle = UNTIMED;
      ctx.fillRect(LABEL_W, y, this.cssWidth - LABEL_W, LANE_H);
      ctx.fillStyle = background;
      var w = this.windows, left = LABEL_W, right = this.cssWidth;
      for (var wi = 0; wi < w.t.length; wi++) {
        var wx0 = Math.max(left, this.xOf(w.t[wi])), wx1 = Math.min(right, this.xOf(w.t[wi] + w.d[wi]));
        if (wx1 > wx0) ctx.fillRect(wx0, y, Math.max(1, wx1 - wx0), LANE_H);
      }
    } else {
      ctx.fillStyle = background;
      ctx.fillRect(LABEL_W, y, this.cssWidth - LABEL_W, LANE_H);
    }
    ctx.save();
    ctx.beginPath(); ctx.rect(0, y, LABEL_W - 6, LANE_H); ctx.clip();
    ctx.fillStyle = '#1d2330';
    ctx.fillText(lane.label, 6, y + LANE_H / 2);
    ctx.restore();
    ctx.save();
    ctx.beginPath(); ctx.rect(LABEL_W, y, this.cssWidth - LABEL_W, LANE_H); ctx.clip();
    var scale = this.plotWidth() / (this.v1 - this.v0);
    var px = -1, pxKind = 0, pxDur = -1;  // the pixel column being merged
    function flush() { if (px >= 0) { ctx.fillStyle = KINDS[pxKind].color; ctx.fillRect(px, y + 2, 1, LANE_H - 4); } px = -1; pxDur = -1; }
    for (var q = lowerBound(lane.maxEnd, n, this.v0); q < n; q++) {
      var it = lane.idx[q], s = this.start[it];
      if (s > this.v1) break;
      var x0 = LABEL_W + (s - this.v0) * scale, w = this.dur[it] * scale;
      if (this.hit[it]) hits.push([x0, w, y]);
      if (w >= 1) {
        flush();
        ctx.fillStyle = KINDS[this.kind[it]].color;
        ctx.fillRect(x0, y + 1, w, LANE_H - 2);
        continue;
      }
      var col = Math.floor(x0);
      if (col !== px) { flush(); px = col; }
      if (this.dur[it] > pxDur) { pxDur = this.dur[it]; pxKind = this.kind[it]; }  // longest one's colour
    }
    flush();
    ctx.restore();
  };

  // The item under (x, y), within 3 px; prefers one that contains the time, then the nearest.
  Timeline.prototype.itemAt = function (x, y) {
    var li = Math.floor((y - this.top) / (LANE_H + LANE_GAP));
    if (x < LABEL_W || li < 0 || li >= this.lanes.length) return -1;
    var lane = this.lanes[li], t = this.tOf(x), tol = 3 * (this.v1 - this.v0) / this.plotWidth();
    var best = -1, bestDist = Infinity;
    for (var q = lowerBound(lane.maxEnd, lane.idx.length, t - tol); q < lane.idx.length; q++) {
      var it = lane.idx[q], s = this.start[it], e = s + this.dur[it];
      if (s > t + tol) break;
      if (e < t - tol) continue;
      var d = t < s ? s - t : t > e ? t - e : -1 / (1 + this.dur[it]);
      if (d < bestDist) { bestDist = d; best = it; }
    }
    return best;
  };

  Timeline.prototype.describe = function (it) {
    var p = this.proc, lines = [];
    var site = function (s) { return s >= 0 && s < p.sites.length ? p.sites[s] : 'unknown'; };
    if (it < this.nOps) {
      lines.push(['tname', p.names[p.ops.n[it]]]);
      lines.push(['', KINDS[p.ops.k[it]].name + ' · ' + fmtDur(p.ops.d[it])]);
      lines.push(['', 'stream: ' + p.lanes[p.ops.l[it]].label]);
      lines.push(['', 'launched from: ' + site(p.ops.s[it])]);
    } else {
      var c = it - this.nOps;
      lines.push(['tname', p.names[p.calls.n[c]]]);
      lines.push(['', 'host blocked ' + fmtDur(p.calls.d[c]) + ' · ' + p.lanes[p.calls.l[c]].label]);
      lines.push(['', 'stream: ' + p.names[p.calls.st[c]]]);
      lines.push(['', 'source: ' + site(p.calls.s[c])]);
    }
    lines.push(['', 'at ' + fmtDur(this.start[it]) + ' from the start']);
    return lines;
  };

  Timeline.prototype.zoomAt = function (x, factor) {
    var t = this.tOf(Math.max(LABEL_W, x)), span = (this.v1 - this.v0) * factor;
    span = Math.min(Math.max(span, 100), this.end * 1.2);  // 100 ns .. the whole run
    var f = (t - this.v0) / (this.v1 - this.v0);
    this.v0 = t - f * span; this.v1 = this.v0 + span;
    this.draw();
  };

  Timeline.prototype.attach = function () {
    var self = this, c = this.canvas, tip = document.getElementById('tooltip'), drag = null;
    function local(e) { var r = c.getBoundingClientRect(); return [e.clientX - r.left, e.clientY - r.top]; }
    c.addEventListener('wheel', function (e) {
      e.preventDefault();
      self.zoomAt(local(e)[0], Math.exp(e.deltaY * 0.002));
    }, { passive: false });
    c.addEventListener('mousedown', function (e) {
      drag = { x: e.clientX, v0: self.v0, v1: self.v1 }; c.classList.add('dragging');
    });
    window.addEventListener('mouseup', function () { drag = null; c.classList.remove('dragging'); });
    c.addEventListener('dblclick', function () { self.v0 = 0; self.v1 = self.end; self.draw(); });
    c.addEventListener('click', function (e) {
      var p = local(e), m = self.markAt(p[0], p[1]);
      if (m >= 0 && onMark) onMark(self.marks.f[m]);
    });
    c.addEventListener('mouseleave', function () { tip.hidden = true; });
    c.addEventListener('mousemove', function (e) {
      if (drag) {
        var dt = (e.clientX - drag.x) * (drag.v1 - drag.v0) / self.plotWidth();
        self.v0 = drag.v0 - dt; self.v1 = drag.v1 - dt;
        self.draw(); tip.hidden = true;
        return;
      }
      var p = local(e), m = self.markAt(p[0], p[1]);
      if (m >= 0) {
        var f = (self.findings || [])[self.marks.f[m]] || {};
        showTip([['tname', (f.rule || '') + ' ' + (f.where || '')], ['', f.message || ''], ['', 'click: select this finding']],
                e.clientX, e.clientY);
        return;
      }
      var it = self.itemAt(p[0], p[1]);
      if (it < 0) { tip.hidden = true; return; }
      showTip(self.describe(it), e.clientX, e.clientY);
    });
  };

  function showTip(lines, x, y) {
    var tip = document.getElementById('tooltip');
    while (tip.firstChild) tip.removeChild(tip.firstChild);
    lines.forEach(function (l) {
      var d = document.createElement('div');
      d.className = l[0]; d.textContent = l[1];
      tip.appendChild(d);
    });
    tip.hidden = false;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    tip.style.left = Math.min(x + 14, window.innerWidth - w - 8) + 'px';
    tip.style.top = (y + 16 + h > window.innerHeight ? y - h - 8 : y + 16) + 'px';
  }

  // Marks the finding's calls and GPU work (by source location) and zooms each timeline to them.
  Timeline.prototype.highlight = function (sites) {
    var p = this.proc, lo = Infinity, hi = -Infinity, count = 0;
    this.hit.fill(0);
    if (sites) {
      for (var i = 0; i < this.start.length; i++) {
        var s = i < this.nOps ? p.ops.s[i] : p.calls.s[i - this.nOps];
        if (s >= 0 && sites.has(s)) {
          this.hit[i] = 1; count++;
          lo = Math.min(lo, this.start[i]); hi = Math.max(hi, this.start[i] + this.dur[i]);
        }
      }
    }
    if (count) {
      var pad = Math.max((hi - lo) * 0.05, 1000);
      this.v0 = Math.max(lo - pad, -pad); this.v1 = hi + pad;
    }
    this.draw();
    return count;
  };

  function selectFinding(row, timelines, findings) {
    var i = +row.getAttribute('data-finding'), f = findings[i];
    var rows = document.querySelectorAll('tr.finding');
    var already = row.classList.contains('selected');
    rows.forEach(function (r) { r.classList.remove('selected'); });
    var per = {};
    if (!already) {
      row.classList.add('selected');
      f.hits.forEach(function (h) { per[h[0]] = new Set(h[1]); });
    }
    var total = 0, first = null;
    timelines.forEach(function (tl) {
      var n = tl.highlight(per[tl.pi] || null);
      total += n;
      if (n && !first) first = tl;
    });
    var status = row.querySelector('.status');
    if (status) status.textContent = already ? '' : total ? total + ' recorded calls / GPU ops at this line highlighted below'
                                                          : 'no recorded call at this line';
    if (first && first.host.scrollIntoView && !window.location.hash) first.host.scrollIntoView({ block: 'nearest' });
    return total;
  }

  function main() {
    var data = JSON.parse(document.getElementById('sl-data').textContent);
    var timelines = [];
    document.querySelectorAll('.timeline').forEach(function (host) {
      var pi = +host.getAttribute('data-process');
      var tl = new Timeline(data.processes[pi], pi, host);
      tl.findings = data.findings;
      timelines.push(tl);
    });
    onMark = function (fi) {
      var row = document.querySelector('tr.finding[data-finding="' + fi + '"]');
      if (row) { selectFinding(row, timelines, data.findings); row.scrollIntoView({ block: 'nearest' }); }
    };
    timelines.forEach(function (tl) { tl.draw(); });
    window.addEventListener('resize', function () { timelines.forEach(function (tl) { tl.draw(); }); });
    document.querySelectorAll('tr.finding').forEach(function (row) {
      row.addEventListener('click', function () { selectFinding(row, timelines, data.findings); });
      row.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); selectFinding(row, timelines, data.findings); }
      });
    });
    if (window.location.hash === '#selftest') selfTest(timelines, data);
    if (body.getAttribute('data-rendered') === 'pending') body.setAttribute('data-rendered', 'ok');
  }

  // For the headless test: zoom, hover and select the way a user would, and record what happened.
  function selfTest(timelines, data) {
    var out = [];
    timelines.forEach(function (tl) {
      tl.zoomAt(LABEL_W + tl.plotWidth() / 2, 0.5);
      tl.zoomAt(LABEL_W + tl.plotWidth() / 2, 2);
      var found = 0;
      for (var li = 0; li < tl.lanes.length && !found; li++) {
        var lane = tl.lanes[li];
        if (!lane.idx.length) continue;
        var it = lane.idx[0];
        tl.v0 = tl.start[it] - 1000; tl.v1 = tl.start[it] + tl.dur[it] + 1000; tl.draw();
        var x = tl.xOf(tl.start[it] + tl.dur[it] / 2), y = tl.laneY(li) + LANE_H / 2;
        found = tl.itemAt(x, y) >= 0 && tl.describe(tl.itemAt(x, y)).length > 0 ? 1 : 0;
      }
      out.push('p' + tl.pi + ':hover=' + found);
      if (tl.marks) {  // a marker is found where it is drawn, and names its finding
        tl.v0 = 0; tl.v1 = tl.end; tl.draw();
        var mx = tl.xOf(tl.marks.t[0]), mq = tl.markAt(mx, AXIS_H + MARK_H / 2);
        out.push('p' + tl.pi + ':marks=' + tl.marks.t.length + ':markhit=' + (mq >= 0 && tl.findings[tl.marks.f[mq]] ? 1 : 0));
      }
    });
    var rows = document.querySelectorAll('tr.finding');
    rows.forEach(function (row, i) { out.push('f' + i + ':hits=' + selectFinding(row, timelines, data.findings)); });
    body.setAttribute('data-selftest', out.join(' '));
  }

  try { main(); } catch (e) { fail(e && e.stack ? e.stack : e); throw e; }
})();
)JS";

}  // namespace sl::runtime
