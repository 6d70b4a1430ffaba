#!/usr/bin/env bash
# Render pages of the pkgdown site (built by `make site` into docs/) in
# headless Chromium, one PNG per page, to look at them.
#   tools/site-screenshots.sh [OUTDIR [SITEDIR]]
# OUTDIR defaults to docs-screenshots, SITEDIR to docs. The pages: the home
# page, the reference index, model_profile and plot.mp_profile, the articles
# index and every article. Before rendering, each page's local <img> files
# and link targets are checked to exist (a missing one is an error). Chromium runs with no
# network (a proxy that refuses every connection): the pages are seen as
# the offline site shows them. Then the search box is given a query
# (SEARCH_QUERY, default "accumulated") and must suggest pages, and "On this
# page" must list headings. CHROMIUM names another browser binary.
set -euo pipefail
out=${1:-docs-screenshots}
site=${2:-docs}
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
if [ -z "$chromium" ]; then
  echo "chromium not found (tools/setup.sh site installs it)" >&2
  exit 1
fi
if [ ! -f "$site/index.html" ]; then
  echo "$site/index.html not found: build the site first (make site)" >&2
  exit 1
fi
mkdir -p "$out"
site_abs=$(cd "$site" && pwd)
out_abs=$(cd "$out" && pwd)
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

pages="index.html reference/index.html reference/model_profile.html
  reference/plot.mp_profile.html articles/index.html"
for f in "$site_abs"/articles/*.html; do
  [ "$(basename "$f")" = "index.html" ] && continue
  pages="$pages articles/$(basename "$f")"
done

status=0
for page in $pages; do
  file="$site_abs/$page"
  if [ ! -f "$file" ]; then
    echo "MISSING page $page" >&2
    status=1
    continue
  fi
  # Local images of the page (src="..." not starting with a scheme or //).
  dir=$(dirname "$file")
  for src in $(grep -o '<img[^>]* src="[^"]*"' "$file" | sed 's/.* src="\([^"]*\)"/\1/' |
                 grep -v -E '^([a-z]+:|//)' | sort -u); do
    if [ ! -f "$dir/${src%%[?#]*}" ]; then
      echo "BROKEN image in $page: $src" >&2
      status=1
    fi
  done
  # Local links of the page (to a file of the site, anchors dropped).
  for href in $(grep -o ' href="[^"]*"' "$file" | sed 's/ href="\([^"]*\)"/\1/' |
                  sed 's/[?#].*//' | grep -v -E '^([a-z]+:|//|$)' | sort -u); do
    if [ ! -e "$dir/$href" ]; then
      echo "BROKEN link in $page: $href" >&2
      status=1
    fi
  done
  png="$out_abs/$(echo "${page%.html}" | tr '/' '_').png"
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$profile" --proxy-server=127.0.0.1:9 --no-first-run \
    --virtual-time-budget=5000 --window-size=1280,2400 \
    --screenshot="$png" "file://$file" > /dev/null 2>&1 || true
  if [ -s "$png" ]; then
    echo "$page -> $png"
  else
    echo "FAILED to render $page" >&2
    status=1
  fi
done

# The search box and "On this page", which work only with their scripts:
# a copy of the reference index that types a query into the search box
# once loaded (search-check.png shows the suggestions), and the number of
# suggestions and of table-of-contents entries read from the rendered page
# (none is an error).
query=${SEARCH_QUERY:-accumulated}
check="$site_abs/reference/search-check.html"
trap 'rm -rf "$profile" "$check"' EXIT
sed "s|</body>|<script>window.addEventListener('load', function() { var i = \$('#search-input'); i.focus(); setTimeout(function() { i.val('$query').trigger('input'); }, 300); });</script></body>|" \
  "$site_abs/reference/index.html" > "$check"
render() {
  timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --hide-scrollbars \
    --user-data-dir="$profile" --proxy-server=127.0.0.1:9 --no-first-run \
    --virtual-time-budget=5000 --window-size=1280,1200 "$@" 2> /dev/null || true
}
render --screenshot="$out_abs/search-check.png" "file://$check" > /dev/null
hits=$(render --dump-dom "file://$check" | grep -o 'class="aa-suggestion' | wc -l)
echo "search for '$query' (offline): $hits suggestions -> $out_abs/search-check.png"
if [ "$hits" -eq 0 ]; then
  echo "SEARCH found nothing offline" >&2
  status=1
fi
for page in articles/modelprofiles.html reference/plot.mp_profile.html; do
  toc=$(render --dump-dom "file://$site_abs/$page" | sed -n '/<nav id="toc"/,/<\/nav><\/aside>/p' |
          grep -o 'class="nav-link' | wc -l)
  echo "On this page of $page: $toc entries"
  if [ "$toc" -eq 0 ]; then
    echo "EMPTY table of contents in $page" >&2
    status=1
  fi
done
exit $status
