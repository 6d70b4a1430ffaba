# The house rules of ARCHITECTURE.md as mechanical checks on the source
# tree (R/, NAMESPACE, tests/testthat/): sizes, the test mirror, one door
# to C++, where bands and engines are asked about, every entry point on
# start_call(), every result class's four methods, tuning constants in
# constants.R, prediction in the executor, formals of exports.
#
#   Rscript tools/house-rules.R [package root, by default "."]
#
# prints what each check finds and exits with status 1 when a rule is
# broken, listing what breaks it. `make check` runs it before building;
# tests/testthat/test-house-rules.R runs it when the source tree is
# reachable (not from an R CMD check of a tarball, which has no tools/).
#
# Some rules do not hold yet: their current offenders are allow-lists
# below, with counts, that can only shrink. A count above its allowance,
# or a file not on the list, is a violation; so is an allowance above what
# the file now has (lower it, so that the slack cannot be used again).

# ---- Allow-lists (each can only shrink) --------------------------------------

allow <- list(
  # Functions longer than 80 lines: "file:function" = lines.
  long_functions = c(),
  # The band plan's kind (band_type(), setup$bands$type) read outside the
  # band files (bands*.R), per file: none since the band plan of issue 39
  # item 1 (estimators call the plan's operations and read what it needs,
  # setup$bands$per_row etc., never its kind).
  band_kinds = c(),
  # setup$native, setup$linear and uses_direct() outside the engine and
  # executor files (engine*, executor*, native*), per file: none since the
  # engine plan of issue 39 item 2 (R/engine.R).
  engine_flags = c(),
  # Numeric literals of 1000 or more in function bodies outside
  # constants.R (sizes, counts of rows, bytes), per file.
  big_literals = c("adapter_trees.R" = 1, "engine_native.R" = 1, "setup.R" = 1),
  # Predictions outside the executor, per file: the probe of the outputs
  # (setup.R), native_agrees() (engine_native.R), the linear engine's
  # linear predictors (engine_linear.R).
  predictions = c("engine_linear.R" = 2, "engine_native.R" = 1, "setup.R" = 2),
  # Exported functions with more than 20 formals (deprecated ones, after
  # `...` with a NULL default, not counted): name = formals.
  formals = c()
)

# Top-level numeric constants allowed outside constants.R: facts of a
# format, not tuning.
format_constants <- c("native_lightgbm.R:LGB_KZ")

# Result classes (constructors new_mp_<class>() in R/result_*.R) that are
# parts or tables of another result, not drawn on their own: they need a
# constructor and print() only.
part_classes <- c(
  mp_ice = "the ICE curves of an mp_profile (drawn by plot(<mp_profile>, geom = \"profiles\"); fortify())",
  mp_effects = "a table of effect_sizes() of an mp_profile (drawn with its profile)"
)

# The house bar (R/'s total lines reported only).
bar <- list(file_lines = 400, function_lines = 80, r_lines = 15263, formals = 20, big_literal = 1000)

# The files where a concern may be asked about.
band_files <- "^bands.*\\.R$"
engine_files <- "^(engine.*|executor.*|native.*)\\.R$"

# Calls that predict: the model's predict function, called by the executor
# (adapters define the families' predict functions), and the engines'
# evaluations (wrapped in R/cpp.R), called by the executor and the engines.
# (affine_values() is not one: it writes out the linear engine's curves,
# which the executor made.)
model_predict_calls <- c("predict", "predict_function", "probe_predict")
model_predict_files <- "^(executor.*|adapter.*)\\.R$"
engine_predict_calls <- c("native_eval", "native_eval_cached", "native_curves", "native_partial_sums",
                          "native_tree_partial", "native_points")
engine_predict_files <- "^(executor.*|engine.*|cpp)\\.R$"

# ---- Reading the source ------------------------------------------------------------

read_sources <- function(root) {
  files <- sort(list.files(file.path(root, "R"), "\\.R$", full.names = TRUE))
  lapply(stats::setNames(files, basename(files)), function(f) {
    ex <- parse(f, keep.source = TRUE)
    pd <- utils::getParseData(ex)
    pd <- pd[pd$terminal, ]
    list(lines = readLines(f, warn = FALSE), exprs = ex, tokens = pd[order(pd$line1, pd$col1), ])
  })
}

# Top-level assignments of functions: list of (name, fun, lines).
top_functions <- function(src) {
  out <- list()
  sr <- attr(src$exprs, "srcref")
  for (i in seq_along(src$exprs)) {
    e <- src$exprs[[i]]
    if (is.call(e) && as.character(e[[1L]]) %in% c("<-", "=") && is.call(e[[3L]]) &&
        identical(e[[3L]][[1L]], as.name("function"))) {
      out[[length(out) + 1L]] <- list(name = as.character(e[[2L]]), fun = e[[3L]],
                                      lines = sr[[i]][3L] - sr[[i]][1L] + 1L)
    }
  }
  out
}

# Count per file of `hit(tokens)`, a logical per token.
count_tokens <- function(sources, hit) {
  n <- vapply(sources, function(s) sum(hit(s$tokens)), numeric(1))
  n[n > 0]
}

calls_of <- function(tokens, names) tokens$token == "SYMBOL_FUNCTION_CALL" & tokens$text %in% names

# The band plan's kind read: `setup$bands$type` or a call of band_type().
band_kind <- function(tokens) {
  n <- nrow(tokens)
  if (n < 5L) return(calls_of(tokens, "band_type"))
  i <- seq_len(n - 4L)
  hit <- tokens$text[i] == "setup" & tokens$token[i] == "SYMBOL" & tokens$token[i + 1L] == "'$'" &
    tokens$text[i + 2L] == "bands" & tokens$token[i + 3L] == "'$'" & tokens$text[i + 4L] == "type"
  c(hit, logical(4L)) | calls_of(tokens, "band_type")
}

# `setup$native`, `setup$linear` or a call of uses_direct().
engine_flag <- function(tokens) {
  n <- nrow(tokens)
  if (n < 3L) return(calls_of(tokens, "uses_direct"))
  i <- seq_len(n - 2L)
  hit <- tokens$text[i] == "setup" & tokens$token[i] == "SYMBOL" & tokens$token[i + 1L] == "'$'" &
    tokens$text[i + 2L] %in% c("native", "linear")
  c(hit, FALSE, FALSE) | calls_of(tokens, "uses_direct")
}

# Numbers in the bodies of functions (not their formals' defaults).
body_numbers <- function(e) {
  if (is.numeric(e)) return(e)
  if (!is.call(e)) return(numeric())
  if (identical(e[[1L]], as.name("function"))) return(body_numbers(e[[3L]]))
  c(numeric(), unlist(lapply(as.list(e)[-1L], function(a) if (missing(a)) numeric() else body_numbers(a))))
}

is_number_expr <- function(e) {
  if (is.numeric(e)) return(TRUE)
  is.call(e) && as.character(e[[1L]])[1L] %in% c("+", "-", "*", "/", "^", "(", "c") &&
    all(vapply(as.list(e)[-1L], is_number_expr, logical(1)))
}

namespace_entries <- function(root) {
  ns <- parse(file.path(root, "NAMESPACE"), keep.source = FALSE)
  exports <- character()
  s3 <- character()
  for (e in ns) {
    f <- as.character(e[[1L]])
    if (f == "export") exports <- c(exports, vapply(as.list(e)[-1L], as.character, ""))
    if (f == "S3method") s3 <- c(s3, paste0(sub("^.*::", "", deparse(e[[2L]])), ".", as.character(e[[3L]])))
  }
  list(exports = exports, s3 = s3)
}

# Formals counted against the bar: all but the deprecated ones, which
# follow `...` with a NULL default.
counted_formals <- function(fun) {
  f <- as.list(fun[[2L]])
  dots <- match("...", names(f))
  if (is.na(dots)) return(length(f))
  after <- seq_along(f) > dots
  deprecated <- after & vapply(f, is.null, logical(1))
  sum(!deprecated)
}

# Compare counts with an allow-list: violations for counts above the
# allowance (or not allowed at all) and for allowances above the count.
ratchet <- function(found, allowed, what) {
  v <- character()
  for (k in union(names(found), names(allowed))) {
    n <- if (k %in% names(found)) found[[k]] else 0
    a <- if (k %in% names(allowed)) allowed[[k]] else 0
    if (n > a) v <- c(v, sprintf("%s: %d %s, allowed %d", k, n, what, a))
    if (n < a) v <- c(v, sprintf("%s: %d %s, allowed %d: lower the allowance in tools/house-rules.R", k, n, what, a))
  }
  v
}

fmt_counts <- function(x) if (length(x)) paste(sprintf("%s %d", names(x), x), collapse = ", ") else "none"

# ---- The checks --------------------------------------------------------------------
# Each returns list(title, found (what it measured), violations).

check_sizes <- function(root, sources) {
  lens <- vapply(sources, function(s) length(s$lines), numeric(1))
  fns <- unlist(lapply(names(sources), function(f) {
    x <- top_functions(sources[[f]])
    if (!length(x)) return(NULL)
    stats::setNames(vapply(x, `[[`, numeric(1), "lines"), paste0(f, ":", vapply(x, `[[`, "", "name")))
  }))
  long <- fns[fns > bar$function_lines]
  super <- vapply(sources, function(s) sum(s$tokens$token == "LEFT_ASSIGN" & s$tokens$text == "<<-"), numeric(1))
  v <- c(
    sprintf("R/%s: %d lines, more than %d", names(lens)[lens > bar$file_lines], lens[lens > bar$file_lines],
            bar$file_lines),
    ratchet(long, allow$long_functions, "lines"),
    sprintf("R/%s: %d <<-", names(super)[super > 0], super[super > 0])
  )
  list(title = "Sizes (files, functions, R/, <<-)",
       found = c(sprintf("R/: %d lines in %d files (issue 39's bar: %d, not enforced before its plans); largest %s",
                         sum(lens), length(lens), bar$r_lines, fmt_counts(utils::head(sort(lens, decreasing = TRUE), 3))),
                 sprintf("functions over %d lines: %s", bar$function_lines, fmt_counts(long)),
                 sprintf("<<-: %d", sum(super))),
       violations = v)
}

# Tests mirror R/ file by file: every R/<name>.R with code has
# tests/testthat/test-<name>.R; suites across files carry a prefix
# (test-contract-*.R, test-equivalence-*.R) or are named standalone.
check_mirror <- function(root, sources) {
  untested <- c("bands_doc", "model_profile_doc", "model_profile_doc_parallel", "constants", "zzz", "RcppExports", "modelprofiles-package")
  standalone <- c("golden", "house-rules")
  prefixes <- c("contract-", "equivalence-")
  r <- sub("\\.R$", "", names(sources))
  tests <- sub("^test-(.*)\\.R$", "\\1", list.files(file.path(root, "tests", "testthat"), "^test-.*\\.R$"))
  no_test <- setdiff(r[!grepl("^data-", r)], c(untested, tests))
  prefixed <- Reduce(`|`, lapply(prefixes, function(p) startsWith(tests, p)))
  orphans <- tests[!(tests %in% r | prefixed | tests %in% standalone)]
  list(title = "Tests mirror R/",
       found = sprintf("%d R files, %d test files (%d cross-cutting)", length(r), length(tests), sum(prefixed)),
       violations = c(sprintf("R/%s.R has no tests/testthat/test-%s.R", no_test, no_test),
                      sprintf("tests/testthat/test-%s.R matches no R file and no prefix (%s)", orphans,
                              paste0(prefixes, "*", collapse = ", "))))
}

check_cpp_door <- function(root, sources) {
  others <- sources[!names(sources) %in% c("cpp.R", "RcppExports.R")]
  cpp <- count_tokens(others, function(t) t$token %in% c("SYMBOL_FUNCTION_CALL", "SYMBOL") & startsWith(t$text, "cpp_"))
  dotcall <- count_tokens(sources[names(sources) != "RcppExports.R"], function(t) calls_of(t, c(".Call", ".C", ".External")))
  list(title = "One door to C++: cpp_*() only in R/cpp.R",
       found = c(sprintf("cpp_ outside cpp.R: %s", fmt_counts(cpp)),
                 sprintf(".Call() outside RcppExports.R: %s", fmt_counts(dotcall))),
       violations = c(sprintf("R/%s: %d use%s of cpp_*() (call it through a wrapper in R/cpp.R)", names(cpp), cpp,
                              ifelse(cpp == 1, "", "s")),
                      sprintf("R/%s: %d .Call()", names(dotcall), dotcall)))
}

check_concerns <- function(root, sources) {
  bands <- count_tokens(sources[!grepl(band_files, names(sources))], band_kind)
  flags <- count_tokens(sources[!grepl(engine_files, names(sources))], engine_flag)
  list(title = "Band kinds in the band files, engine flags in the engine and executor files",
       found = c(sprintf("the band plan's kind (band_type(), setup$bands$type) outside bands*.R: %d in %d files (%s)", sum(bands), length(bands),
                         fmt_counts(bands)),
                 sprintf("setup$native, setup$linear, uses_direct() outside engine*, executor*, native*: %d in %d files (%s)",
                         sum(flags), length(flags), fmt_counts(flags))),
       violations = c(ratchet(bands, allow$band_kinds, "band_type() calls"),
                      ratchet(flags, allow$engine_flags, "engine flags")))
}

check_entry_points <- function(root, sources) {
  ns <- namespace_entries(root)
  entries <- character()
  missing_start <- character()
  for (f in names(sources)) {
    for (fn in top_functions(sources[[f]])) {
      if (!fn$name %in% ns$exports) next
      args <- names(as.list(fn$fun[[2L]]))
      if (!all(c("x", "predict_function") %in% args)) next
      entries <- c(entries, fn$name)
      if (!"start_call" %in% all.names(fn$fun[[3L]])) missing_start <- c(missing_start, paste0("R/", f, ": ", fn$name, "()"))
    }
  }
  list(title = "Every entry point (an export taking x and predict_function) calls start_call()",
       found = sprintf("%d entry points: %s", length(entries), paste(entries, collapse = ", ")),
       violations = sprintf("%s does not call start_call()", missing_start))
}

check_result_classes <- function(root, sources) {
  ns <- namespace_entries(root)
  results <- sources[grepl("^result_.*\\.R$", names(sources))]
  funs <- unlist(lapply(sources, top_functions), recursive = FALSE)
  defined <- vapply(funs, `[[`, "", "name")
  classes <- sub("^new_", "", grep("^new_mp_", unlist(lapply(results, function(s) vapply(top_functions(s), `[[`, "", "name"))),
                                    value = TRUE))
  v <- character()
  for (cls in classes) {
    needed <- if (cls %in% names(part_classes)) "print" else c("print", "autoplot", "plot")
    for (m in needed) {
      method <- paste0(m, ".", cls)
      if (!method %in% defined || !method %in% ns$s3) v <- c(v, sprintf("%s has no %s() method (defined and registered)", cls, m))
    }
    plot <- funs[defined == paste0("plot.", cls)]
    if ("plot" %in% needed && length(plot) && !paste0("autoplot.", cls) %in% all.names(plot[[1L]]$fun)) {
      v <- c(v, sprintf("plot.%s() does not call autoplot.%s()", cls, cls))
    }
  }
  list(title = "Every result class has new_<class>(), print(), autoplot() and plot() (which calls autoplot())",
       found = sprintf("%d result classes: %s (parts: %s)", length(classes), paste(classes, collapse = ", "),
                       paste(intersect(classes, names(part_classes)), collapse = ", ")),
       violations = v)
}

check_constants <- function(root, sources) {
  others <- sources[!names(sources) %in% c("constants.R", "RcppExports.R")]
  top <- character()
  for (f in names(others)) {
    for (e in others[[f]]$exprs) {
      if (is.call(e) && as.character(e[[1L]]) %in% c("<-", "=") && is_number_expr(e[[3L]])) {
        top <- c(top, paste0(f, ":", as.character(e[[2L]])))
      }
    }
  }
  top_bad <- setdiff(top, format_constants)
  big <- vapply(others, function(s) {
    x <- c(numeric(), unlist(lapply(top_functions(s), function(fn) body_numbers(fn$fun))))
    sum(is.finite(x) & abs(x) >= bar$big_literal)
  }, numeric(1))
  big <- big[big > 0]
  list(title = "Numeric tuning constants in R/constants.R",
       found = c(sprintf("top-level numeric constants outside constants.R: %d (%s)", length(top),
                         if (length(top)) paste(top, collapse = ", ") else "none"),
                 sprintf("numbers >= %d in function bodies outside constants.R: %s", bar$big_literal, fmt_counts(big))),
       violations = c(sprintf("R/%s: a numeric constant outside R/constants.R", top_bad),
                      ratchet(big, allow$big_literals, sprintf("numbers >= %d", bar$big_literal))))
}

# Arithmetic on the memory budget (x$memory_budget or memory_budget next to
# `*` or `/`) outside the ledger (budget.R): shares are asked for by name.
budget_arithmetic <- function(tokens) {
  j <- which(tokens$token == "SYMBOL" & tokens$text == "memory_budget")
  if (!length(j)) return(FALSE)
  start <- ifelse(j > 2L & tokens$token[pmax(j - 1L, 1L)] == "'$'", j - 2L, j)
  ops <- c("'*'", "'/'")
  before <- start > 1L & tokens$token[pmax(start - 1L, 1L)] %in% ops
  after <- j < nrow(tokens) & tokens$token[pmin(j + 1L, nrow(tokens))] %in% ops
  before | after
}

check_budget <- function(root, sources) {
  found <- count_tokens(sources[names(sources) != "budget.R"], budget_arithmetic)
  list(title = "The memory budget's shares asked for by name (budget_bytes(), R/budget.R)",
       found = sprintf("arithmetic on memory_budget outside budget.R: %s", fmt_counts(found)),
       violations = sprintf("R/%s: %d product%s or quotient%s of memory_budget (name its share in budget_shares, R/constants.R)",
                            names(found), found, ifelse(found == 1, "", "s"), ifelse(found == 1, "", "s")))
}

check_predictions <- function(root, sources) {
  found <- vapply(names(sources), function(f) {
    t <- sources[[f]]$tokens
    (if (grepl(model_predict_files, f)) 0 else sum(calls_of(t, model_predict_calls))) +
      (if (grepl(engine_predict_files, f)) 0 else sum(calls_of(t, engine_predict_calls)))
  }, numeric(1))
  found <- found[found > 0]
  list(title = "Prediction only in the executor",
       found = sprintf("predict()/predict functions outside executor*, adapter*; engine evaluations outside executor*, engine*, cpp.R: %d in %d files (%s)",
                       sum(found), length(found), fmt_counts(found)),
       violations = ratchet(found, allow$predictions, "prediction calls"))
}

check_formals <- function(root, sources) {
  ns <- namespace_entries(root)
  n <- numeric()
  for (s in sources) {
    for (fn in top_functions(s)) if (fn$name %in% ns$exports) n[fn$name] <- counted_formals(fn$fun)
  }
  over <- n[n > bar$formals]
  list(title = sprintf("At most %d formals on exported functions (deprecated ones, after ... = NULL, not counted)",
                       bar$formals),
       found = sprintf("%d exports; over %d: %s", length(n), bar$formals, fmt_counts(over)),
       violations = ratchet(over, allow$formals, "formals"))
}

house_checks <- list(check_sizes, check_mirror, check_cpp_door, check_concerns, check_entry_points,
                     check_result_classes, check_constants, check_budget, check_predictions, check_formals)

# Every check's result on the package at `root`.
house_rules <- function(root = ".") {
  sources <- read_sources(root)
  lapply(house_checks, function(check) check(root, sources))
}

report_house_rules <- function(results) {
  for (r in results) {
    cat(if (length(r$violations)) "FAIL" else "ok  ", r$title, "\n")
    cat(paste0("       ", r$found, "\n"), sep = "")
    if (length(r$violations)) cat(paste0("     x ", r$violations, "\n"), sep = "")
  }
  n <- sum(lengths(lapply(results, `[[`, "violations")))
  cat(if (n) sprintf("\n%d violation%s of the house rules.\n", n, if (n == 1) "" else "s") else "\nThe house rules hold.\n")
  invisible(n)
}

if (identical(environment(), globalenv()) && !interactive()) {
  args <- commandArgs(trailingOnly = TRUE)
  n <- report_house_rules(house_rules(if (length(args)) args[1L] else "."))
  quit(status = if (n > 0) 1L else 0L)
}
