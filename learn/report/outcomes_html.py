"""Did the rules work, in the HTML report: a card per rule in place, with two charts.

One chart is the correction over time (a dot per day it was said, a line on
the day the rule was in place); the other the rate per loaded session before
and since, each with its 95% interval, so a rule seen in three sessions shows
as the wide bar it is. Read from the run's `extra["outcomes"]`
(learn.reduce.outcomes.RuleOutcome.to_json) like the digest's section.
"""

from __future__ import annotations

from html import escape
from typing import Any

from learn.records.proposal import RunResult
from learn.reduce.outcomes import VERDICT_WORDS
from learn.report.outcomes import (
    check_sentence,
    kept_sentence,
    loading_sentence,
    outcomes_of,
    rates_sentence,
    verdict_sentence,
    where_written,
)
from learn.report.words import day, flatten

CSS = """
.outcome{background:#fff;border:1px solid #ddd;border-radius:6px;padding:12px 14px;margin:10px 0}
.outcome.ignored{border-left:4px solid #d9480f}.outcome.holding{border-left:4px solid #2b8a3e}
.outcome.too-early{border-left:4px solid #868e96}
.outcome.never-loaded{border-left:4px solid #1971c2}
.outcome-chart svg,.outcome-rates svg{display:block}
.outcome .fix{background:#e7f5ff;padding:6px 8px;border-radius:4px}
"""

# Two small charts per rule: a dot per day its correction was said (area ~ times)
# with a line on the day the rule was in place; and the rate per loaded session
# before and since, a bar each with its interval as a whisker. Each box gets
# data-chart-ready (and data-points / data-bars) like the main chart, for the
# headless-browser test.
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
  (data.outcomes||[]).forEach(function(o,i){
    var box=document.getElementById('outcome-rates-'+i); if(!box)return;
    try{
      var r=o.rates||{}, sides=[['before',r.before],['since',r.since]];
      var w=Math.max(480,box.clientWidth-20), row=22, pad=70, h=2*row+22;
      var svg=document.createElementNS(NS,'svg');svg.setAttribute('width',w);svg.setAttribute('height',h);
      svg.setAttribute('role','img');svg.setAttribute('aria-label','rate per loaded session before and since, with 95% intervals');
      function el(n,a,tx){var e=document.createElementNS(NS,n);for(var k in a)e.setAttribute(k,a[k]);
        if(tx!==undefined)e.textContent=tx;svg.appendChild(e);return e;}
      var x=function(v){return pad+v*(w-pad-20);};
      [0,0.5,1].forEach(function(v){el('line',{x1:x(v),x2:x(v),y1:4,y2:h-16,stroke:'#eee'});
        el('text',{x:x(v)-8,y:h-4,'font-size':10,fill:'#888'},Math.round(100*v)+'%');});
      var bars=0;
      sides.forEach(function(s,k){var y=6+k*row, v=s[1];
        el('text',{x:4,y:y+12,'font-size':11,fill:'#333'},s[0]);
        if(!v||!v.sessions){el('text',{x:pad,y:y+12,'font-size':11,fill:'#888'},'no sessions');return;}
        var b=el('rect',{x:x(0),y:y+2,width:Math.max(1,x(v.rate)-x(0)),height:12,fill:k?'#d9480f':'#868e96'});
        var tip=document.createElementNS(NS,'title');
        tip.textContent=v.said+' of '+v.sessions+' sessions ('+Math.round(100*v.rate)+'%, 95% interval '+
          Math.round(100*v.low)+'-'+Math.round(100*v.high)+'%)';b.appendChild(tip);
        el('line',{x1:x(v.low),x2:x(v.high),y1:y+8,y2:y+8,stroke:'#222','stroke-width':1.5});
        el('line',{x1:x(v.low),x2:x(v.low),y1:y+3,y2:y+13,stroke:'#222'});
        el('line',{x1:x(v.high),x2:x(v.high),y1:y+3,y2:y+13,stroke:'#222'});
        bars++;});
      box.appendChild(svg);box.setAttribute('data-bars',String(bars));box.setAttribute('data-chart-ready','1');
    }catch(err){box.setAttribute('data-chart-ready','error');box.textContent='chart failed: '+err;}
  });
})();
"""


def _plain(text: str) -> str:
    return escape(text.replace("`", ""))


def outcome_html(result: RunResult) -> str:
    """The report's section: a card and two charts per rule in place ('' when none)."""
    found = outcomes_of(result)
    if not found:
        return ""
    parts = ["<h2>Did the rules work?</h2>"]
    for i, o in enumerate(found):
        parts.append(f'<section class="outcome {escape(o.verdict)}" id="outcome-{escape(o.key)}">'
                     f"<h3>{escape(o.label)} — {escape(VERDICT_WORDS[o.verdict])}</h3>"
                     f'<div class="rule">{escape(flatten(o.rule_text))}</div>'
                     f'<p class="meta">{_plain(where_written(o))}. {_plain(verdict_sentence(o))}.</p>')
        if o.kept:
            parts.append(f'<p class="meta">{_plain(kept_sentence(o.kept))}.</p>')
        if o.not_loaded and (o.verdict == "never-loaded" or o.said_unloaded):
            parts.append(f'<p class="fix">Fix: {_plain(str(o.not_loaded.get("fix") or ""))}</p>')
        if o.verdict != "never-loaded":
            parts.append(f'<p class="meta">{_plain(rates_sentence(o))}.</p>'
                         f'<div class="outcome-rates" id="outcome-rates-{i}" '
                         'data-chart-ready="0"></div>')
        if (loading := loading_sentence(o)) is not None:
            parts.append(f'<p class="meta">Loading: {_plain(loading)}.</p>')
        if o.check:
            parts.append(f'<p class="meta">{_plain(check_sentence(o.check))}.</p>')
        parts.append(f'<div class="outcome-chart" id="outcome-chart-{i}" '
                     'data-chart-ready="0"></div>')
        for q, where in [*((q, "") for q in o.quotes_since),
                         *((q, " · where the rule was not loaded") for q in o.quotes_unloaded)]:
            parts.append(f"<blockquote>“{escape(flatten(q.text))}”<br><small>session "
                         f"<code>{escape(q.session_id)}</code> · {escape(day(q.at) or 'undated')}"
                         f"{where}</small></blockquote>")
        parts.append("</section>")
    return "\n".join(parts)


def outcome_data(result: RunResult) -> list[dict[str, Any]]:
    return [o.to_json() for o in outcomes_of(result)]
