"""Did the rule work: the digest section and the report's cards, one per rule in place.

Read from the run's `extra["outcomes"]` (learn.reduce.outcomes.RuleOutcome.to_json),
so `learn digest` and `learn report` re-render a stored run without a model call.
"""

from __future__ import annotations

from html import escape
from typing import Any

from learn.records.proposal import RunResult
from learn.reduce.outcomes import MIN_SESSIONS_SINCE, VERDICT_WORDS, RuleOutcome, outcome_from_json
from learn.report.words import day, flatten, plural

QUOTES_SHOWN = 3


def outcomes_of(result: RunResult) -> list[RuleOutcome]:
    return [outcome_from_json(x) for x in result.extra.get("outcomes") or ()
            if isinstance(x, dict)]


def verdict_sentence(o: RuleOutcome) -> str:
    if o.verdict == "ignored":
        return (f"ignored: said again in {plural(o.said_since, 'session')} since it was "
                "written; a rule the agent keeps breaking wants a stronger surface")
    if o.verdict == "holding":
        return f"holding: not said again in {plural(o.sessions_since, 'session')} since"
    return (f"too early to tell: {plural(o.sessions_since, 'session')} since, and learn waits "
            f"for {MIN_SESSIONS_SINCE} before calling a rule holding")


def escalation_sentence(e: dict[str, Any]) -> str:
    key, summary, state = e.get("key", ""), e.get("summary", ""), e.get("state")
    if state in ("applied", "edited"):
        return f"escalated already ({summary}; `{key}` applied)"
    if state == "declined":
        return (f"escalation `{key}` declined: offered again only if said in twice the "
                "sessions")
    return f"escalation proposed: {summary} (`learn apply --only {key}`)"


def _where(o: RuleOutcome) -> str:
    when = day(o.applied_at) or o.applied_at
    if o.origin == "written":
        return f"you wrote it in `{o.target_file}` (learn first saw it {when})"
    return f"written to `{o.target_file}` on {when}"


def outcome_lines(result: RunResult) -> list[str]:
    """The digest's "Did the rules work?" section; [] when no rule is in place."""
    found = outcomes_of(result)
    if not found:
        return []
    out = ["", "## Did the rules work?", "",
           "Each rule in place, against the sessions that started after it (counted like "
           "every proposal: verified quotes, distinct sessions).", ""]
    for o in found:
        out.append(f"- **{o.label}** — {VERDICT_WORDS[o.verdict]}: \"{flatten(o.rule_text, 160)}\"")
        out.append(f"  - {_where(o)}")
        out.append(f"  - before: said in {o.said_before} of {plural(o.sessions_before, 'session')}"
                   f"; since: said in {o.said_since} of {plural(o.sessions_since, 'session')}")
        out.append(f"  - {verdict_sentence(o)}")
        for q in o.quotes_since[:QUOTES_SHOWN]:
            when = f" ({day(q.at)})" if q.at else ""
            out.append(f"  - said since: \"{flatten(q.text, 200)}\"{when}")
        if len(o.quotes_since) > QUOTES_SHOWN:
            out.append(f"  - and {plural(len(o.quotes_since) - QUOTES_SHOWN, 'more quote')}")
        if o.escalation:
            out.append(f"  - {escalation_sentence(o.escalation)}")
    return out


CSS = """
.outcome{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px 14px;margin:10px 0}
.outcome.ignored{border-left:4px solid #d9480f}.outcome.holding{border-left:4px solid #2b8a3e}
.outcome.too-early{border-left:4px solid #868e96}
.outcome-chart svg{display:block}
"""

# One small chart per rule: a dot per day its correction was said (area ~ times),
# a line on the day the rule was in place. Sets data-chart-ready / data-points on
# each box like the main chart, for the headless-browser test.
JS = r"""
(function(){
  var data=JSON.parse(document.getElementById('learn-data').textContent);
  var NS='http://www.w3.org/2000/svg';
  (data.outcomes||[]).forEach(function(o,i){
    var box=document.getElementById('outcome-chart-'+i); if(!box)return;
    try{
      var t=function(d){return Date.parse(d.slice(0,10)+'T00:00:00Z');};
      var applied=t(o.applied_at), days=o.per_day.map(function(p){return t(p[0]);});
      var lo=Math.min.apply(null,days.concat([applied])), hi=Math.max.apply(null,days.concat([applied]));
      if(hi<=lo){hi=lo+86400000;lo=lo-86400000;}
      var w=Math.max(480,box.clientWidth-20), h=56, pad=16;
      var svg=document.createElementNS(NS,'svg');svg.setAttribute('width',w);svg.setAttribute('height',h);
      svg.setAttribute('role','img');svg.setAttribute('aria-label','times said before and since the rule');
      function el(n,a,tx){var e=document.createElementNS(NS,n);for(var k in a)e.setAttribute(k,a[k]);
        if(tx!==undefined)e.textContent=tx;svg.appendChild(e);return e;}
      var x=function(v){return pad+(v-lo)/(hi-lo)*(w-2*pad);};
      el('line',{x1:pad,x2:w-pad,y1:30,y2:30,stroke:'#e5e5e5'});
      el('line',{x1:x(applied),x2:x(applied),y1:8,y2:50,stroke:'#555','stroke-dasharray':'3 3'});
      el('text',{x:x(applied)+4,y:14,'font-size':11,fill:'#555'},'rule in place '+o.applied_at.slice(0,10));
      var n=0;
      o.per_day.forEach(function(p){var v=t(p[0]);
        var c=el('circle',{cx:x(v),cy:30,r:Math.min(10,3+3*Math.sqrt(p[1])),fill:v>=applied?'#d9480f':'#868e96'});
        var tip=document.createElementNS(NS,'title');tip.textContent=p[1]+' on '+p[0];c.appendChild(tip);n++;});
      box.appendChild(svg);box.setAttribute('data-points',String(n));box.setAttribute('data-chart-ready','1');
    }catch(err){box.setAttribute('data-chart-ready','error');box.textContent='chart failed: '+err;}
  });
})();
"""


def outcome_html(result: RunResult) -> str:
    """The report's section: a card and a chart per rule in place ('' when none)."""
    found = outcomes_of(result)
    if not found:
        return ""
    parts = ["<h2>Did the rules work?</h2>"]
    for i, o in enumerate(found):
        parts.append(f'<section class="outcome {escape(o.verdict)}" id="outcome-{escape(o.key)}">'
                     f"<h3>{escape(o.label)} — {escape(VERDICT_WORDS[o.verdict])}</h3>"
                     f'<div class="rule">{escape(flatten(o.rule_text))}</div>'
                     f'<p class="meta">{escape(_where(o).replace("`", ""))}. Before: said in '
                     f"{o.said_before} of {plural(o.sessions_before, 'session')}; since: said in "
                     f"{o.said_since} of {plural(o.sessions_since, 'session')}. "
                     f"{escape(verdict_sentence(o))}.</p>"
                     f'<div class="outcome-chart" id="outcome-chart-{i}" data-chart-ready="0"></div>')
        for q in o.quotes_since:
            parts.append(f"<blockquote>“{escape(flatten(q.text))}”<br><small>session "
                         f"<code>{escape(q.session_id)}</code> · {escape(day(q.at) or 'undated')}"
                         "</small></blockquote>")
        parts.append("</section>")
    return "\n".join(parts)


def outcome_data(result: RunResult) -> list[dict[str, Any]]:
    return [o.to_json() for o in outcomes_of(result)]
