/* The "On this page" table of contents of the pkgdown site, without the
 * network. pkgdown 2.0.7's pages load bootstrap-toc 1.0.1 from a CDN, and no
 * package registry reachable here ships it, so tools/build-site.R puts this
 * file in its place. It offers the one call pkgdown.js makes,
 *   Toc.init({$nav: $("#toc"), $scope: $("main h2, main h3, ...")}),
 * and builds what pkgdown's CSS and Bootstrap's scrollspy expect:
 *   <nav class="nav nav-pills flex-column">
 *     <a class="nav-link" href="#id">Heading</a>
 *     <nav class="nav nav-pills flex-column"> (the subheadings) </nav>
 *     ...
 * The top level is the first heading level with more than one heading in the
 * scope, the level below it is nested; headings marked data-toc-skip are left
 * out, and a heading without an id gets one from its text. */
(function($) {
  "use strict";

  function newList() {
    return $('<nav class="nav nav-pills flex-column"></nav>');
  }

  function anchorOf(el) {
    if (el.id) return el.id;
    var base = $(el).text().trim().toLowerCase().replace(/[^a-z0-9]+/g, "-");
    base = base.replace(/^-+|-+$/g, "") || el.tagName.toLowerCase();
    var id = base;
    for (var i = 1; document.getElementById(id); i++) id = base + "-" + i;
    el.id = id;
    return id;
  }

  function levelOf(el) {
    return parseInt(el.tagName.charAt(1), 10);
  }

  window.Toc = {
    init: function(opts) {
      if (opts && opts.jquery) opts = {$nav: opts};
      var $nav = opts.$nav;
      var $scope = (opts.$scope || $(document.body)).filter(function() {
        return !this.hasAttribute("data-toc-skip");
      });
      if (!$nav || !$nav.length || !$scope.length) return;

      var top = 1;
      for (var l = 1; l <= 6; l++) {
        if ($scope.filter("h" + l).length > 1) { top = l; break; }
      }
      var $top = newList();
      var $sub = null;
      var $lastTop = null;
      $scope.filter("h" + top + ", h" + (top + 1)).each(function() {
        var $a = $('<a class="nav-link"></a>')
          .attr("href", "#" + anchorOf(this))
          .text($(this).data("toc-text") || $(this).text().trim());
        if (levelOf(this) === top || !$lastTop) {
          $top.append($a);
          $lastTop = $a;
          $sub = null;
        } else {
          if (!$sub) {
            $sub = newList();
            $lastTop.after($sub);
          }
          $sub.append($a);
        }
      });
      $nav.attr("data-toggle", "toc").append($top);
    }
  };
})(window.jQuery);
