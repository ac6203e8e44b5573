//! The page's stylesheet and its one script, kept apart from the code that writes the
//! page so that each reads whole.

pub(super) const PAGE_STYLE: &str = r#"
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:#1f2328;background:#f6f8fa;display:flex;flex-direction:column}
#overview{order:-1;background:#fff;border-bottom:1px solid #d0d7de;padding:12px 24px}
.skip{position:absolute;left:-999px}.skip:focus{left:8px;top:8px}
h1{font-size:20px;margin:0 0 4px}
h2{font-size:16px;margin:16px 0 6px}
.run{color:var(--muted);margin:2px 0}
.counts{display:flex;flex-wrap:wrap;gap:10px;margin:8px 0}
.count{border-radius:6px;padding:2px 10px;background:#eaeef2;font-weight:600}
.count.error{background:var(--error);color:#fff}.count.warning{background:var(--warning);color:#fff}.count.info{background:var(--info);color:#fff}
.filter{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin-top:8px}
.filter label{cursor:pointer;user-select:none}
.filter input[type=search]{font:inherit;padding:2px 8px;min-width:260px}
.legend svg{display:block;max-width:100%;height:auto;margin-top:6px}
table{border-collapse:collapse;font-size:13px}
th,td{text-align:left;padding:3px 10px 3px 0;border-bottom:1px solid #eaeef2;vertical-align:top}
td.n,th.n{text-align:right}
.index{max-height:60vh;overflow:auto;border:1px solid #d0d7de;border-radius:6px;padding:0 8px;font-size:13px}
.index .row{display:grid;grid-template-columns:minmax(12em,2fr) minmax(12em,3fr) 5.5em 5.5em 5.5em minmax(8em,2fr);gap:0 10px;padding:2px 0;border-bottom:1px solid #eaeef2;overflow-wrap:anywhere}
.index .row.head{position:sticky;top:0;background:#fff;font-weight:600;z-index:1}
.index .n{text-align:right}
.block{content-visibility:auto;contain-intrinsic-size:auto 4000px}
main .block{display:flex;flex-direction:column;gap:10px}
.problems li{margin:2px 0}
main{padding:16px 24px;display:flex;flex-direction:column;gap:10px}
details.workload{background:#fff;border:1px solid #d0d7de;border-radius:8px;padding:8px 14px}
details.workload>summary{cursor:pointer;display:flex;flex-wrap:wrap;gap:8px;align-items:baseline}
details.workload>summary .name{font-weight:600}
details.workload>summary .origin{font-size:12px}
.picture{background-repeat:no-repeat;background-size:100% 100%;max-width:100%;height:auto}
svg.defs{position:absolute}
.body{scroll-margin-top:64px}
.toggle{position:absolute;opacity:0;pointer-events:none}
.filter label::before{content:"\2611\FE0E";display:inline-block;width:1.2em;font-size:1.1em}
#show-error:not(:checked)~#overview label[for=show-error]::before,
#show-warning:not(:checked)~#overview label[for=show-warning]::before,
#show-info:not(:checked)~#overview label[for=show-info]::before,
#show-clean:not(:checked)~#overview label[for=show-clean]::before,
#show-suppressed:not(:checked)~#overview label[for=show-suppressed]::before{content:"\2610\FE0E"}
#show-error:focus-visible~#overview label[for=show-error],
#show-warning:focus-visible~#overview label[for=show-warning],
#show-info:focus-visible~#overview label[for=show-info],
#show-clean:focus-visible~#overview label[for=show-clean],
#show-suppressed:focus-visible~#overview label[for=show-suppressed]{outline:2px solid #0969da}
#show-error:not(:checked)~* .worst-error,
#show-warning:not(:checked)~* .worst-warning,
#show-info:not(:checked)~* .worst-info,
#show-clean:not(:checked)~* .worst-none,
#show-suppressed:not(:checked)~* .suppressed{display:none}
"#;

/// Filters the overview's index and the sections by the text typed: an enhancement,
/// the page reads and filters by severity without it.
pub(super) const SEARCH_SCRIPT: &str = r#"
(function () {
  var filter = document.querySelector('.filter');
  if (!filter) return;
  var box = document.createElement('input');
  box.type = 'search';
  box.id = 'search';
  box.placeholder = 'Search workloads, files, rules';
  box.setAttribute('aria-label', 'Search workloads, files and rules');
  filter.appendChild(box);
  var rows = Array.prototype.slice.call(document.querySelectorAll('#index .row[data-section]'));
  box.addEventListener('input', function () {
    var words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
    rows.forEach(function (row) {
      var text = row.getAttribute('data-search');
      var hit = words.every(function (w) { return text.indexOf(w) >= 0; });
      row.hidden = !hit;
      var section = document.getElementById(row.getAttribute('data-section'));
      if (section) section.hidden = !hit;
    });
  });
})();
"#;
