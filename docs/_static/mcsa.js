/* mcsa-verify site: once MathJax has typeset the page and its images are loaded, go back to
   the #anchor the page was opened at (both change the heights of what is above it, so the
   browser's own jump to the anchor ends up in the wrong place). */
(function () {
  if (!location.hash) return;
  var start = Date.now();
  var loaded = new Promise(function (done) {
    if (document.readyState === "complete") done(); else window.addEventListener("load", done);
  });
  var typeset = new Promise(function (done) {
    document.addEventListener("DOMContentLoaded", function () {
      if (!document.querySelector('script[src*="mathjax"]')) return done();  // a page without formulas
      var tries = 0;
      (function wait() {
        if (window.MathJax && MathJax.startup && MathJax.startup.promise) MathJax.startup.promise.then(done, done);
        else if (tries++ < 100) setTimeout(wait, 50);
        else done();
      })();
    });
  });
  Promise.all([loaded, typeset]).then(function () {
    var el = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (el && Date.now() - start < 8000) el.scrollIntoView();  // not once the reader has moved on
  });
})();
