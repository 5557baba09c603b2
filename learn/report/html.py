"""`learn report`: one self-contained HTML file with the evidence behind every proposal.

Self-contained on purpose: the file holds quotes of what the user typed, so it
must open from disk with no network at all (no CDN, no fonts, no analytics).
The Content-Security-Policy makes that a property of the page, not a promise:
even a stray URL could not be fetched. The proposals are rendered here, in
Python, so the page reads fine with scripts off; the inline script only draws
the timeline chart from the embedded JSON.
"""

from __future__ import annotations

import json
from collections import Counter
from html import escape
from typing import Any

from learn.records.proposal import Proposal, RunResult
from learn.report.digest import (
    LEARN_DIGEST_MARKER,
    OFFLINE_LIMITS,
    SECTIONS,
    funnel_sentence,
    is_proposed,
)
from learn.report.outcomes import applied_here, in_place_line
from learn.report.outcomes_html import CSS as OUTCOME_CSS
from learn.report.outcomes_html import JS as OUTCOME_JS
from learn.report.outcomes_html import outcome_data, outcome_html
from learn.report.proposal_lines import evidence_line, project_line, scope_sentence, sessions_read
from learn.report.words import day, flatten, plural
from learn.textunits import cjk_language
from learn.visible import inert_json, visible

CSP = ("default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
       "img-src data:")

CSS = """
body{font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;margin:0;background:#fbfbfa;color:#1d1d1f}
main{max-width:1040px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 8px;border-bottom:1px solid #ddd}
.meta{color:#555;margin:2px 0}
#chart{background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px;overflow-x:auto}
#chart svg{display:block}
.card{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px 14px;margin:10px 0}
.card h3{font-size:16px;margin:0 0 4px}.card .key{color:#777;font:12px ui-monospace,monospace}
.rule{background:#eef6ee;border-left:3px solid #2b8a3e;padding:6px 10px;margin:8px 0}
.restated{background:#fff4e6;border-left:3px solid #d9480f;padding:6px 10px;margin:8px 0}
blockquote{margin:6px 0;padding:2px 10px;border-left:3px solid #ccc;color:#333;overflow-wrap:anywhere}
.rule,.restated{overflow-wrap:anywhere}
blockquote small{color:#777}
table{border-collapse:collapse}td,th{padding:3px 10px;text-align:left;border-bottom:1px solid #eee}
td.n{text-align:right;font-variant-numeric:tabular-nums}
.declined{opacity:.7}
code{font:13px ui-monospace,monospace;background:#f1f1f1;padding:0 3px;border-radius:3px}
"""

# Draws one lane per proposal: a dot per day it was said, area ~ occurrences that day.
# Writes data-chart-ready / data-points on #chart when done, which is what the
# headless-browser test (and anyone debugging a blank chart) looks at.
JS = r"""
(function(){
  var box=document.getElementById('chart');
  try{
    var data=JSON.parse(document.getElementById('learn-data').textContent);
    var series=data.series, NS='http://www.w3.org/2000/svg';
    var days=[];series.forEach(function(s){s.points.forEach(function(p){if(days.indexOf(p[0])<0)days.push(p[0]);});});
    days.sort();
    var t=function(d){return Date.parse(d+'T00:00:00Z');};
    var lo=days.length?t(days[0]):0, hi=days.length?t(days[days.length-1]):1;
    if(hi<=lo){hi=lo+86400000;lo=lo-86400000;}
    var left=220,right=30,top=28,lane=30,width=Math.max(640,box.clientWidth-20);
    var height=top+Math.max(1,series.length)*lane+30;
    var svg=document.createElementNS(NS,'svg');
    svg.setAttribute('width',width);svg.setAttribute('height',height);
    svg.setAttribute('role','img');svg.setAttribute('aria-label','occurrences per proposal over time');
    function el(name,attrs,text){var e=document.createElementNS(NS,name);
      for(var k in attrs)e.setAttribute(k,attrs[k]);if(text!==undefined)e.textContent=text;svg.appendChild(e);return e;}
    var pad=14, x=function(d){return left+pad+(t(d)-lo)/(hi-lo)*(width-left-right-2*pad);};
    var count=0, colours={directive:'#d9480f',fix:'#1971c2',request:'#2b8a3e'};
    el('text',{x:left,y:16,'font-size':12,fill:'#555'},days.length?days[0]:'');
    el('text',{x:width-right,y:16,'font-size':12,fill:'#555','text-anchor':'end'},days.length?days[days.length-1]:'');
    var lx=width/2-120;
    ['directive','fix','request'].forEach(function(k){
      el('circle',{cx:lx,cy:12,r:5,fill:colours[k]});el('text',{x:lx+9,y:16,'font-size':12,fill:'#555'},k);lx+=85;});
    series.forEach(function(s,i){
      var y=top+i*lane+lane/2;
      el('line',{x1:left,x2:width-right,y1:y,y2:y,stroke:'#e5e5e5'});
      el('text',{x:left-8,y:y+4,'font-size':12,'text-anchor':'end',fill:'#333'},s.label.length>30?s.label.slice(0,29)+'\u2026':s.label);
      s.points.forEach(function(p){
        var c=el('circle',{cx:x(p[0]),cy:y,r:Math.min(12,4+3*Math.sqrt(p[1])),fill:colours[s.kind]||'#555','fill-opacity':0.85});
        var tip=document.createElementNS(NS,'title');tip.textContent=s.label+': '+p[1]+' on '+p[0];c.appendChild(tip);
        count++;
      });
    });
    if(!series.length)el('text',{x:left,y:top+20,'font-size':13,fill:'#777'},'no dated quotes to chart');
    box.appendChild(svg);
    box.setAttribute('data-points',String(count));
    box.setAttribute('data-chart-ready','1');
  }catch(err){box.setAttribute('data-chart-ready','error');box.textContent='chart failed: '+err;throw err;}
})();
"""


def chart_series(result: RunResult) -> list[dict[str, Any]]:
    """Per proposal, occurrences per day, from the dated quotes (undated ones cannot be placed)."""
    series: list[dict[str, Any]] = []
    for p in result.proposals:
        per_day = Counter(d for q in p.quotes if (d := day(q.at)))
        series.append({"key": p.key, "label": visible(p.label), "kind": p.kind,
                       "points": sorted([d, n] for d, n in per_day.items())})
    return series


def _script_json(value: Any) -> str:
    # "</script" would end the element early and quotes of what the user typed can hold
    # anything, so no "<", ">" or "&" reaches the page raw (the \u escapes are plain JSON);
    # nor a hidden character (learn.visible.inert_json), for whoever reads the file as text.
    text = inert_json(json.dumps(value, ensure_ascii=False))
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _lang(text: str) -> str:
    """A `lang` attribute for a quote in Chinese, Japanese or Korean (so the
    browser picks that language's glyphs for shared Han characters), else ""."""
    language = cjk_language(text)
    return f' lang="{language}"' if language else ""


def _text(text: str) -> str:
    """`text` for the page: HTML-escaped, and nothing hidden or acting (learn.visible), as
    the digest does. A quote, a label, a command and a project path come from a
    transcript or a model, and `escape` keeps a C0 control or a bidi override, which shows
    the words in another order than they are read."""
    return escape(visible(text))


def _card(p: Proposal, result: RunResult) -> str:
    v = p.verdict
    # As the digest says it (learn.report.proposal_lines.item_lines): a rule in place and
    # measured is said as its outcome says it, and an applied one is no proposal.
    in_place = in_place_line(p, result)
    applied = in_place is not None and applied_here(result, p.key)
    parts = [f'<section class="card{"" if is_proposed(p) else " declined"}" id="{_text(p.key)}">',
             f"<h3>{_text(p.label)}</h3>",
             f'<div class="key">{_text(p.key)} · {_text(p.status)}</div>',
             f'<p class="meta">{_text(evidence_line(p, result))}</p>']
    where = project_line(p)
    if where:  # which project the rule belongs to (markdown backticks dropped)
        parts.append(f'<p class="meta">{_text(where.replace("`", ""))}</p>')
    if v is not None and not applied:
        verb = "Proposed rule" if v.accepted else "Judged not worth a rule"
        parts.append(f'<div class="rule"><b>{verb}</b> ({_text(v.scope)} scope, '
                     f"{_text(v.category or 'uncategorised')}, confidence {v.confidence:.2f}): "
                     f"{_text(flatten(v.summary))}"
                     + (f"<br><small>{_text(flatten(v.rationale))}</small>" if v.rationale else "")
                     + "</div>")
    elif p.worded and not applied:
        parts.append(f'<div class="rule"><b>Proposed rule</b> (worded from your quote; no model '
                     f"judged it): {_text(flatten(p.worded))}</div>")
    from learn.reduce.surfaces import is_memory_file
    from learn.report.agent_targets import written_elsewhere
    from learn.report.proposal_lines import UNMEASURED, agent_name, names_list

    if in_place is not None:  # its backticks dropped, as project_line's above
        parts.append(f'<div class="restated">{_text(in_place.replace("`", ""))}</div>')
    elif p.status == "restated" and p.existing_rule and is_memory_file(p.existing_rule_file):
        parts.append(f'<div class="restated"><b>Promote from memory to CLAUDE.md</b>: your '
                     f"agent's memory (<code>{_text(p.existing_rule_file or '')}</code>) says "
                     f"“{_text(flatten(p.existing_rule))}” — machine-local, and loaded only "
                     "in part.</div>")
    elif p.status == "restated" and p.existing_rule:
        where = f" in <code>{_text(p.existing_rule_file)}</code>" if p.existing_rule_file else ""
        parts.append(f'<div class="restated">Already written{where}: '
                     f"“{_text(flatten(p.existing_rule))}” — {_text(UNMEASURED)}.</div>")
    elif p.status == "has-skill" and p.existing_rule:
        parts.append(f'<div class="restated">Covered by the <code>{_text(p.existing_rule)}'
                     "</code> skill: sharpen its description.</div>")
    elif p.existing_rule and (missing := written_elsewhere(p)):
        said = names_list([agent_name(a) for a in missing])
        parts.append(f'<div class="restated">Written for another agent in '
                     f"<code>{_text(p.existing_rule_file or '')}</code>: "
                     f"“{_text(flatten(p.existing_rule))}” — but you said it to {_text(said)}, "
                     "which does not read that file: apply writes it there.</div>")
    if p.command:
        parts.append(f"<p>Command: <code>{_text(flatten(p.command))}</code></p>")
    if p.error_excerpt:
        parts.append(f"<p>Error: <code>{_text(flatten(p.error_excerpt, 300))}</code></p>")
    quotes = p.quotes or ()
    # A fix's text describes what happened; only what the user typed gets quotation marks.
    lq, rq = ("", "") if p.kind == "fix" else ("“", "”")
    for q in quotes:
        when = _text(day(q.at) or "undated")
        parts.append(f"<blockquote{_lang(q.text)}>{lq}{_text(flatten(q.text))}{rq}<br>"
                     f"<small>session <code>{_text(q.session_id)}</code> · {when}"
                     + (f" · {_text(q.project)}" if q.project else "")
                     + "</small></blockquote>")
    if not quotes:
        parts.append(f"<blockquote{_lang(p.text)}>{lq}{_text(flatten(p.text))}{rq}</blockquote>")
    parts.append("</section>")
    return "\n".join(parts)


def _usage_table(result: RunResult) -> str:
    u, f = result.usage, result.funnel
    rows = [("Sessions seen", u.sessions_seen), ("Read by the model", u.sessions_mined),
            ("Reused from cache", u.sessions_cached), ("Failed", u.sessions_failed),
            ("Model calls", u.model_calls), ("Input tokens", u.input_tokens),
            ("Output tokens", u.output_tokens)]
    funnel = [("Verified occurrences", f.candidates), ("Groups", f.points),
              ("Over the threshold", f.over_threshold), ("Below the threshold", f.below_threshold),
              ("Shown", f.shown), ("Held back (already shown)", f.held_back),
              ("Cut by the cap", f.cut)]

    def table(title: str, body: list[tuple[str, int]], extra: str = "") -> str:
        cells = "".join(f"<tr><td>{escape(k)}</td><td class=n>{n:,}</td></tr>" for k, n in body)
        return f"<h2>{title}</h2><table>{cells}{extra}</table>"

    cost = f"<tr><td>Cost (USD)</td><td class=n>${u.cost_usd:.4f}</td></tr>"
    return table("Funnel", funnel) + table("Cost and usage", rows, cost)


def render_html(result: RunResult, *, title: str = "learn report") -> str:
    start, end = day(result.window_start), day(result.window_end)
    window = f"{start} to {end}" if start and end else (start or end or "unknown window")
    summary = (f"{plural(result.usage.sessions_seen, 'session')} read "
               f"({sessions_read(result)} counted), {window}"
               + (f", projects: {', '.join(result.projects)}" if result.projects else ""))
    scope = scope_sentence(result, markdown=False)
    summary += f". {scope}" if scope else ""
    body: list[str] = []
    proposed = [p for p in result.proposals if is_proposed(p)]
    declined = [p for p in result.proposals if not is_proposed(p)]
    for kind, heading in SECTIONS:
        items = [p for p in proposed if p.kind == kind]
        if items:
            body.append(f"<h2>{escape(heading)}</h2>")
            body.extend(_card(p, result) for p in items)
    if declined:
        body.append("<h2>Repeated, but judged not worth a rule</h2>")
        body.extend(_card(p, result) for p in declined)
    body.append(visible(outcome_html(result)))  # its quotes too (outcomes_html)
    if not result.proposals:
        body.append(f"<p>Nothing to propose. {escape(funnel_sentence(result.funnel))}</p>")
    if result.failures:
        body.append("<h2>What failed</h2><ul>"
                    + "".join(f"<li>{_text(flatten(x, 300))}</li>" for x in result.failures)
                    + "</ul>")
    data = {"series": chart_series(result), "run": result.to_json(),
            "outcomes": outcome_data(result)}
    offline = (f'<p class="meta offline"><b>{escape(OFFLINE_LIMITS)}</b></p>\n'
               if result.offline else "")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{CSP}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="generator" content="learn">
<title>{escape(title)}</title><style>{CSS}{OUTCOME_CSS}</style></head>
<body><main>
<h1>{escape(title)}</h1>
<p class="meta">{_text(summary)}</p>
<p class="meta">{escape(funnel_sentence(result.funnel))}</p>
{offline}<p class="meta">Every quote below was checked against what you typed in that session. The counts
are distinct sessions: evidence, not conclusions.</p>
<h2>Occurrences over time</h2>
<div id="chart" data-chart-ready="0"></div>
{"".join(body)}
{_usage_table(result)}
<p class="meta"><small>{escape(LEARN_DIGEST_MARKER)} generated by learn; self-contained, no network.</small></p>
</main>
<script type="application/json" id="learn-data">{_script_json(data)}</script>
<script>{JS}</script>
<script>{OUTCOME_JS}</script>
</body></html>
"""
