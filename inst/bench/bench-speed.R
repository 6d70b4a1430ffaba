# Every speed target of modelprofiles against the peers and the floor, in
# one run, as ratios.
#
#   bash tools/setup.sh bench          # once: the peers, effectplots, ALEPlot, callr
#   Rscript inst/bench/bench-speed.R   # about 20-25 minutes on a 2-core machine
#
# Workloads (8 numeric features unless said otherwise; all background rows,
# N = NULL):
#   A. ranger 100 trees, 3,000 rows: PD at 51 points of all 8 features through
#      predict() (engine = "predict", keep_ice default) against the grid-major
#      floor (one predict() per feature of data[rep(1:n, G), ], the grid
#      varying slowest; stacking not timed), the observation-major floor,
#      hstats, pdp, DALEX, iml, effectplots. Target: <= 0.65x the grid-major floor.
#   B. ranger 100 trees, 5,000 rows: AL with K = 50 (ALEPlot's edges), the
#      default call (engine = "auto"), against effectplots, ALEPlot, iml and
#      the 2n floor. Target: >= 3x faster than effectplots.
#   C. lm with 4 interactions, 50,000 rows: PD at 51 points, the default call
#      model_profile(fit, X, N = NULL, grid_points = 51) (ICE kept) and
#      keep_ice = FALSE, against pdp, hstats, DALEX, effectplots and the floor.
#      Target: <= 0.5x pdp.
#   D. engine = "native" against engine = "predict": D1 ranger 300 trees, 3,000
#      rows, PD at 51 points; D2 bench-native.R's forest (500 trees, fitted on
#      20,000 rows), 1,000 background rows, 101 points, 10 features,
#      keep_ice = FALSE, threads = 2. Target: >= 50x; numbers identical.
#   E. h_statistic(), model_profile_2d(), compare_profiles() on A's forest
#      through predict() (engine = "predict"), sequential against
#      future::plan(multisession, workers = 2): with ranger's own predict()
#      (all cores, modelprofiles' default) and with predict(num.threads = 1).
#      Target: >= 1.7x; numbers identical.
#   F. Peak memory at 10^6 rows x 10 numeric columns (default memory_budget):
#      lm PD with ICE kept (the default call on 2 variables, grid_points small
#      enough for the curves to fit), ranger 100 trees (fitted on 20,000 rows)
#      with engine = "native". VmHWM from /proc/self/status, reset through
#      /proc/self/clear_refs, in a fresh process. Target: peak RSS <= the RSS
#      before the data + the data + the budget.
#
# Every run of a method is a fresh R process (callr, else Rscript), so that
# first-call costs (loading, compiling a model) count; what is timed is the
# call alone (the floors: their predict() calls alone). The runs alternate
# across the methods of a workload (round 1 in order, round 2 reversed, ...);
# medians of BENCH_REPS runs. A method whose first run takes longer than
# BENCH_SLOW seconds (BENCH_SLOW_REF for the two sides of a target) runs once.
# Numbers are checked against modelprofiles' (max abs diff) where comparable.
# Results: inst/bench/results/bench-speed.md (a table per workload and a
# summary table to paste into README.md) and bench-speed.rds.
#
# Environment variables:
#   BENCH_QUICK=1              small data, 2 runs: a smoke run (not for results;
#                              written to $TMPDIR/bench-speed-quick.md unless BENCH_OUT)
#   BENCH_ONLY=A,C             run these workloads only (letters, or D1, D2)
#   MODELPROFILES_LIB          library to load modelprofiles from (also put first
#                              on R_LIBS for the worker processes and future's workers)
#   MODELPROFILES_BENCH_CACHE  directory to keep the fitted forests in between
#                              runs (shared with bench-native.R)
#   BENCH_REPS (3), BENCH_SLOW (25), BENCH_SLOW_REF (120), BENCH_TIMEOUT (1800 s)
#   BENCH_E_PREDICT            E's predict functions: "default,1 thread" (default)
#   BENCH_OUT                  output markdown file (the .rds next to it)
#   BENCH_NOTE                 a line for the header (e.g. the commit measured)

script_path <- function() {
  f <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  if (length(f)) normalizePath(f[1]) else normalizePath("inst/bench/bench-speed.R")
}
lib_file <- file.path(dirname(script_path()), "bench-speed-lib.R")
sys.source(lib_file, envir = environment())

# ---- Settings --------------------------------------------------------------------------

env_num <- function(name, default) {
  v <- Sys.getenv(name)
  if (nzchar(v)) as.numeric(v) else default
}

speed_settings <- function() {
  quick <- identical(Sys.getenv("BENCH_QUICK"), "1")
  q <- function(small, full) if (quick) small else full
  only <- toupper(trimws(strsplit(Sys.getenv("BENCH_ONLY", "A,B,C,D,E,F"), ",")[[1]]))
  e_pred <- trimws(strsplit(Sys.getenv("BENCH_E_PREDICT", "default,1 thread"), ",")[[1]])
  stopifnot(all(e_pred %in% c("default", "1 thread")))
  lib <- Sys.getenv("MODELPROFILES_LIB")
  s <- list(
    quick = quick, only = only, lib = if (nzchar(lib)) normalizePath(lib) else NULL,
    G = 51L, K = 50L,
    n_A = q(300L, 3000L), n_B = q(500L, 5000L), n_C = q(2000L, 50000L),
    D2_fit = q(2000L, 20000L), D2_N = q(200L, 1000L), D2_G = 101L,
    E_predict = e_pred,
    E_h_N = q(50L, 250L), E_2d_N = q(200L, 1000L), E_2d_grid = q(7L, 15L),
    E_cmp_N = q(200L, 1000L), E_cmp_grid = q(11L, 51L),
    F_n = q(1e5, 1e6), F_vars = c("x1", "x2"), F_fit = 20000L,
    reps = as.integer(env_num("BENCH_REPS", q(2L, 3L))),
    slow = env_num("BENCH_SLOW", 25), slow_ref = env_num("BENCH_SLOW_REF", 120),
    timeout = env_num("BENCH_TIMEOUT", 1800),
    use_callr = requireNamespace("callr", quietly = TRUE)
  )
  s
}

# ---- Running one method in a fresh process ----------------------------------------------

run_one <- function(spec, settings) {
  if (settings$use_callr) {
    tryCatch(
      callr::r(function(lib_file, spec) {
        e <- new.env()
        sys.source(lib_file, envir = e)
        e$worker_safe(spec)
      }, args = list(lib_file, spec), show = FALSE, timeout = settings$timeout,
      libpath = c(settings$lib, .libPaths())),
      error = function(e) {
        msg <- conditionMessage(e)
        if (!is.null(e$parent)) msg <- paste(msg, conditionMessage(e$parent))
        list(error = msg)
      }
    )
  } else {
    f_in <- tempfile(fileext = ".rds")
    f_out <- tempfile(fileext = ".rds")
    saveRDS(spec, f_in)
    code <- sprintf("e <- new.env(); sys.source('%s', envir = e); saveRDS(e$worker_safe(readRDS('%s')), '%s')",
                    lib_file, f_in, f_out)
    status <- system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)),
                      stdout = FALSE, stderr = FALSE, timeout = settings$timeout)
    if (status != 0 || !file.exists(f_out)) return(list(error = sprintf("Rscript exited with status %s", status)))
    readRDS(f_out)
  }
}

# Runs of every method of workload `wl`, alternating: a list by method of
# lists of run results.
run_workload <- function(wl, settings) {
  runs <- stats::setNames(lapply(wl$methods, function(m) list()), wl$methods)
  skip <- stats::setNames(rep(NA_character_, length(wl$methods)), wl$methods)
  for (m in wl$methods) {
    pkg <- if (wl$kind %in% c("PD", "AL")) peer_package(m) else NA
    if (!is.na(pkg) && !requireNamespace(pkg, quietly = TRUE)) skip[[m]] <- sprintf("not run: %s is not installed", pkg)
  }
  reps <- wl$reps %||% settings$reps
  for (round in seq_len(reps)) {
    ord <- if (round %% 2L == 1L) wl$methods else rev(wl$methods)
    for (m in ord) {
      if (!is.na(skip[[m]])) next
      if (round > 1L) {
        first <- runs[[m]][[1]]
        limit <- if (m %in% wl$protected) settings$slow_ref else settings$slow
        if (!is.null(first$error) || first$time > limit) next
      }
      spec <- list(kind = wl$kind, method = m, lib = settings$lib,
                   rds = if (is.list(wl$rds)) wl$rds[[m]] else wl$rds,
                   settings = settings)
      message(sprintf("[%s] %s | %s | run %d ...", format(Sys.time(), "%H:%M:%S"), wl$id, m, round))
      t0 <- Sys.time()
      r <- run_one(spec, settings)
      if (!is.null(r$error)) {
        message("  FAILED: ", substr(r$error, 1, 300))
      } else {
        message(sprintf("  %.2f s (cpu %.2f; process %.0f s), peak +%.0f MiB, load %.2f",
                        r$time, r$cpu, as.numeric(difftime(Sys.time(), t0, units = "secs")),
                        r$peak_mib, r$load[1]))
      }
      runs[[m]][[length(runs[[m]]) + 1L]] <- r
    }
  }
  list(runs = runs, skip = skip)
}

# ---- Scenarios ---------------------------------------------------------------------------

cached <- function(cache, name, make) {
  f <- file.path(cache, name)
  if (file.exists(f)) return(readRDS(f))
  message("fitting ", name, " ...")
  m <- make()
  saveRDS(m, f)
  m
}

# The scenarios (saved for the workers) and the workloads.
make_workloads <- function(settings, tmp, cache) {
  s <- settings
  save <- function(x, name) {
    f <- file.path(tmp, paste0(name, ".rds"))
    saveRDS(x, f)
    f
  }
  fmt_n <- function(n) format(n, big.mark = ",", scientific = FALSE)
  wanted <- function(id) id %in% s$only || substr(id, 1, 1) %in% s$only
  rf <- function(d, trees, name) {
    cached(cache, name, function() {
      ranger::ranger(x = d$X, y = d$y, num.trees = trees, num.threads = 2, seed = 1)
    })
  }
  wl <- list()
  d_A <- make_data(s$n_A, 1)
  if (wanted("A") || wanted("E")) rf_A <- rf(d_A, 100, sprintf("speed_rf100_n%d_seed1.rds", s$n_A))
  if (wanted("A")) {
    wl$A <- list(
      id = "A", kind = "PD",
      title = sprintf("A. ranger 100 trees, n = %s: PD at %d points x 8 features, engine = \"predict\"", fmt_n(s$n_A), s$G),
      rds = save(list(model = rf_A, X = d_A$X, grids = lapply(d_A$X, pd_grid, G = s$G),
                      mp_args = list(engine = "predict")), "A"),
      methods = c("modelprofiles", "floor, grid-major", "floor, observation-major", "hstats",
                  "pdp", "DALEX", "iml", "effectplots"),
      protected = c("modelprofiles", "floor, grid-major"),
      floor = "floor, grid-major"
    )
  }
  if (wanted("B")) {
    d <- make_data(s$n_B, 2)
    wl$B <- list(
      id = "B", kind = "AL",
      title = sprintf("B. ranger 100 trees, n = %s: AL with K = %d (ALEPlot's edges) x 8 features, default call", fmt_n(s$n_B), s$K),
      rds = save(list(model = rf(d, 100, sprintf("speed_rf100_n%d_seed2.rds", s$n_B)), X = d$X,
                      edges = lapply(d$X, ale_edges, K = s$K), mp_args = list()), "B"),
      methods = c("modelprofiles", "effectplots", "ALEPlot", "iml", "floor, 2n rows"),
      protected = c("modelprofiles", "effectplots"),
      floor = "floor, 2n rows"
    )
  }
  if (wanted("C")) {
    d <- make_data(s$n_C, 3)
    fit <- stats::lm(y ~ x1 * x2 + x3 * x4 + x5 * x6 + x7 * x8, data = cbind(d$X, y = d$y))
    wl$C <- list(
      id = "C", kind = "PD",
      title = sprintf("C. lm with 4 interactions, n = %s: PD at %d points x 8 features, default call", fmt_n(s$n_C), s$G),
      rds = save(list(model = fit, X = d$X, grids = lapply(d$X, pd_grid, G = s$G), mp_args = list()), "C"),
      methods = c("modelprofiles", "modelprofiles, keep_ice = FALSE", "pdp", "floor, grid-major",
                  "floor, n rows per call", "hstats", "effectplots", "DALEX"),
      protected = c("modelprofiles", "modelprofiles, keep_ice = FALSE", "pdp"),
      floor = "floor, grid-major"
    )
  }
  if (wanted("D1")) {
    wl$D1 <- list(
      id = "D1", kind = "engine",
      title = sprintf("D1. ranger 300 trees, n = %s: PD at %d points x 8 features, native against predict()", fmt_n(s$n_A), s$G),
      rds = save(list(model = rf(d_A, 300, sprintf("speed_rf300_n%d_seed1.rds", s$n_A)), X = d_A$X,
                      mp_args = list(grid_points = s$G)), "D1"),
      methods = c("engine = \"native\"", "engine = \"predict\""),
      protected = c("engine = \"native\"", "engine = \"predict\"")
    )
  }
  if (wanted("D2")) {
    d <- make_native_data(s$D2_fit, s$D2_N)
    wl$D2 <- list(
      id = "D2", kind = "engine",
      title = sprintf("D2. bench-native.R's ranger 500 trees (fitted on %s rows), %s background rows: PD at %d points x 10 features, keep_ice = FALSE, threads = 2",
                      fmt_n(s$D2_fit), fmt_n(s$D2_N), s$D2_G),
      rds = save(list(model = rf(d, 500, sprintf("nbench_fit_%d.rds", s$D2_fit)), X = d$bg,
                      mp_args = list(grid_points = s$D2_G, keep_ice = FALSE, threads = 2)), "D2"),
      methods = c("engine = \"native\"", "engine = \"predict\""),
      protected = c("engine = \"native\"", "engine = \"predict\"")
    )
  }
  if (wanted("E")) {
    wl$E <- list(
      id = "E", kind = "parallel",
      title = sprintf("E. A's forest (ranger 100 trees, n = %s) through predict(): sequential against plan(multisession, workers = 2)", fmt_n(s$n_A)),
      rds = save(list(model = rf_A, X = d_A$X), "E"),
      methods = c("sequential", "multisession"),
      protected = c("sequential", "multisession")
    )
  }
  if (wanted("F")) {
    d <- make_wide(s$F_fit, 1)
    fit <- stats::lm(y ~ x1 * x2 + x3 * x4 + x5 + x6 + x7 + x8 + x9 + x10, data = cbind(d$X, y = d$y))
    forest <- cached(cache, sprintf("speed_rf100_wide_n%d.rds", s$F_fit), function() {
      ranger::ranger(x = d$X, y = d$y, num.trees = 100, num.threads = 2, seed = 1)
    })
    wl$F <- list(
      id = "F", kind = "memory",
      title = sprintf("F. Peak memory, %s rows x 10 numeric columns, memory_budget = %s MiB: PD of %s at %d grid points, ICE kept (default call)",
                      fmt_n(s$F_n), s$budget, paste(s$F_vars, collapse = ", "), s$F_grid),
      rds = list(lm = save(list(model = fit), "F_lm"), `ranger, native` = save(list(model = forest), "F_rf")),
      methods = c("lm", "ranger, native"),
      protected = character(),
      reps = 1L
    )
  }
  wl
}

# ---- Summaries ------------------------------------------------------------------------------

med <- function(x) if (length(x)) stats::median(x) else NA_real_

# Per method: times, medians, first result, error.
summarise_runs <- function(res) {
  out <- lapply(names(res$runs), function(m) {
    rs <- res$runs[[m]]
    ok <- Filter(function(r) is.null(r$error), rs)
    err <- Filter(function(r) !is.null(r$error), rs)
    list(method = m, times = vapply(ok, `[[`, numeric(1), "time"),
         cpu = vapply(ok, `[[`, numeric(1), "cpu"),
         peak = vapply(ok, `[[`, numeric(1), "peak_mib"),
         load = vapply(ok, function(r) r$load[1], numeric(1)),
         first = if (length(ok)) ok[[1]], all = ok,
         error = if (length(err)) err[[1]]$error else if (!is.na(res$skip[[m]])) res$skip[[m]])
  })
  stats::setNames(out, names(res$runs))
}

fmt <- function(x, digits = 3) {
  ifelse(is.na(x), "—", sub("\\.$", "", formatC(signif(x, digits), format = "fg", digits = digits, flag = "#")))
}
fmt_int <- function(x) ifelse(is.na(x), "—", formatC(as.numeric(x), format = "d", big.mark = ","))
fmt_sci <- function(x) ifelse(is.na(x), "—", formatC(x, format = "e", digits = 1))
fmt_s <- function(x) ifelse(is.na(x), "—", paste(fmt(x), "s"))
clean <- function(x) gsub("[\r\n|]+", " ", x)

# The table of a PD/AL workload, and its agreement with modelprofiles.
profile_table <- function(wl, S, eff_ref) {
  mp <- S[["modelprofiles"]]
  ref <- mp$first$profile
  t_mp <- med(mp$times)
  t_floor <- med(S[[wl$floor]]$times)
  rows <- lapply(S, function(x) {
    t <- med(x$times)
    r <- if (x$method == "effectplots" && wl$kind == "PD") eff_ref else ref
    diff <- if (x$method != "modelprofiles" && !is.null(x$first)) {
      max_diff(x$first$profile, r, center = wl$kind == "AL")
    } else NA_real_
    notes <- c(
      if (length(x$times) == 1L) "single run",
      if (startsWith(x$method, "floor")) "predict() only",
      if (x$method == "effectplots" && wl$kind == "PD") "own points (bin means); compared to modelprofiles there",
      if (x$method == "DALEX") "one model_profile() per feature",
      if (!is.null(x$first$info$n_predictions)) sprintf("%s predictions, engine %s, %s ICE rows",
                                                        fmt_int(x$first$info$n_predictions),
                                                        x$first$info$engine, fmt_int(x$first$info$ice_rows)),
      if (length(x$first$messages)) paste("messages:", paste(substr(x$first$messages, 1, 120), collapse = " / ")),
      if (!is.null(x$error)) paste("FAILED:", substr(x$error, 1, 200))
    )
    data.frame(method = x$method, runs = length(x$times), seconds = t,
               all = paste(sprintf("%.2f", x$times), collapse = ", "),
               x_floor = t / t_floor, x_mp = t / t_mp, cpu = med(x$cpu), peak_mib = med(x$peak),
               max_abs_diff = diff, notes = clean(paste(notes, collapse = "; ")), stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

profile_md <- function(tab, wl) {
  c("| method | runs | s | runs (s) | x floor | x modelprofiles | cpu s | peak MiB | max abs diff | notes |",
    "|---|---:|---:|---|---:|---:|---:|---:|---:|---|",
    sprintf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |", tab$method, tab$runs, fmt(tab$seconds),
            tab$all, fmt(tab$x_floor), fmt(tab$x_mp), fmt(tab$cpu), fmt(tab$peak_mib),
            fmt_sci(tab$max_abs_diff), tab$notes),
    "", sprintf("x floor: against `%s`.", wl$floor))
}

engine_table <- function(S) {
  nat <- S[["engine = \"native\""]]
  pre <- S[["engine = \"predict\""]]
  same <- !is.null(nat$first) && !is.null(pre$first) &&
    identical(nat$first$profile$yhat, pre$first$profile$yhat) && identical(nat$first$ice, pre$first$ice)
  diff <- if (!is.null(nat$first) && !is.null(pre$first)) {
    max(max_diff(nat$first$profile, pre$first$profile),
        if (length(nat$first$ice) == length(pre$first$ice) && length(pre$first$ice)) max(abs(nat$first$ice - pre$first$ice)) else 0)
  } else NA_real_
  rows <- lapply(S, function(x) {
    data.frame(method = x$method, runs = length(x$times), seconds = med(x$times),
               all = paste(sprintf("%.2f", x$times), collapse = ", "), x_native = med(x$times) / med(nat$times),
               cpu = med(x$cpu), peak_mib = med(x$peak),
               engine = x$first$info$engine %||% NA, predictions = x$first$info$n_predictions %||% NA,
               ice_rows = x$first$info$ice_rows %||% NA,
               notes = clean(paste(c(if (length(x$times) == 1L) "single run",
                                     if (!is.null(x$error)) paste("FAILED:", substr(x$error, 1, 200))),
                                   collapse = "; ")), stringsAsFactors = FALSE)
  })
  tab <- do.call(rbind, rows)
  attr(tab, "identical") <- same
  attr(tab, "max_abs_diff") <- diff
  tab
}

engine_md <- function(tab) {
  c("| method | runs | s | runs (s) | x native | cpu s | peak MiB | engine used | predictions | ICE rows | notes |",
    "|---|---:|---:|---|---:|---:|---:|---|---:|---:|---|",
    sprintf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |", tab$method, tab$runs, fmt(tab$seconds), tab$all,
            fmt(tab$x_native), fmt(tab$cpu), fmt(tab$peak_mib), tab$engine,
            fmt_int(tab$predictions), fmt_int(tab$ice_rows), tab$notes),
    "", sprintf("Numbers of the two engines (profiles and ICE curves) identical: %s (max abs diff %s).",
                attr(tab, "identical"), fmt_sci(attr(tab, "max_abs_diff"))))
}

parallel_table <- function(S) {
  get <- function(plan) {
    out <- list()
    for (r in S[[plan]]$all) for (e in r$entries) out[[length(out) + 1L]] <- c(e, plan = plan)
    out
  }
  all <- c(get("sequential"), get("multisession"))
  if (!length(all)) return(NULL)
  keys <- unique(vapply(all, function(e) paste(e$entry, e$variant, sep = "\r"), ""))
  rows <- lapply(keys, function(k) {
    es <- Filter(function(e) paste(e$entry, e$variant, sep = "\r") == k, all)
    s <- Filter(function(e) e$plan == "sequential", es)
    m <- Filter(function(e) e$plan == "multisession", es)
    ts <- vapply(s, `[[`, numeric(1), "time")
    tm <- vapply(m, `[[`, numeric(1), "time")
    ref <- es[[1]]$numbers
    same <- all(vapply(es, function(e) identical(e$numbers, ref), logical(1)))
    diff <- max(vapply(es, function(e) max_diff_numbers(e$numbers, ref), numeric(1)))
    data.frame(entry = es[[1]]$entry, variant = es[[1]]$variant, runs = sprintf("%d / %d", length(ts), length(tm)),
               sequential = med(ts), multisession = med(tm), speedup = med(ts) / med(tm),
               seq_all = paste(sprintf("%.2f", ts), collapse = ", "), multi_all = paste(sprintf("%.2f", tm), collapse = ", "),
               identical = same && length(s) > 0 && length(m) > 0, max_abs_diff = diff,
               predictions = es[[1]]$n_predictions %||% NA, stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

variant_label <- c(default = "ranger's predict() (all cores; modelprofiles' default)",
                   `1 thread` = "predict(num.threads = 1)")

parallel_md <- function(tab) {
  c("| entry | predict function | runs (seq / multi) | sequential s | multisession s | speed-up | identical | max abs diff | predictions | runs, sequential (s) | runs, multisession (s) |",
    "|---|---|---|---:|---:|---:|---|---:|---:|---|---|",
    sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", tab$entry, variant_label[tab$variant], tab$runs,
            fmt(tab$sequential), fmt(tab$multisession), fmt(tab$speedup), tab$identical, fmt_sci(tab$max_abs_diff),
            fmt_int(tab$predictions), tab$seq_all, tab$multi_all))
}

memory_table <- function(S, budget) {
  rows <- lapply(S, function(x) {
    r <- x$first
    if (is.null(r)) {
      return(data.frame(model = x$method, seconds = NA, rss_base = NA, data_mib = NA, budget = budget, hwm = NA,
                        above_base = NA, limit = NA, within = NA, ice_rows = NA, engine = NA,
                        notes = clean(paste("FAILED:", substr(x$error %||% "", 1, 200))), stringsAsFactors = FALSE))
    }
    data_mib <- r$info$data_mib
    data.frame(model = x$method, seconds = r$time, rss_base = r$rss_base, data_mib = data_mib, budget = budget,
               hwm = r$hwm, above_base = r$hwm - r$rss_base, limit = r$rss_base + data_mib + budget,
               within = r$hwm <= r$rss_base + data_mib + budget, ice_rows = r$info$ice_rows,
               engine = r$info$engine,
               notes = clean(paste(c(if (!r$reset_ok) "VmHWM could not be reset: the peak includes loading",
                                     sprintf("ICE kept for: %s", if (length(r$info$ice_vars)) paste(r$info$ice_vars, collapse = ", ") else "none"),
                                     sprintf("%s predictions", fmt_int(r$info$n_predictions)),
                                     if (length(r$messages)) paste("messages:", paste(substr(r$messages, 1, 150), collapse = " / "))),
                                   collapse = "; ")), stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

memory_md <- function(tab) {
  c("| model | s | RSS before data MiB | data MiB | budget MiB | peak RSS MiB | peak - before data | limit (before + data + budget) | within | engine | ICE rows | notes |",
    "|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|",
    sprintf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |", tab$model, fmt(tab$seconds), fmt(tab$rss_base),
            fmt(tab$data_mib), fmt(tab$budget), fmt(tab$hwm), fmt(tab$above_base), fmt(tab$limit), tab$within,
            tab$engine, fmt_int(tab$ice_rows), tab$notes))
}

# One summary row.
srow <- function(workload, mp, other, ratio, target, met) {
  data.frame(workload = workload, modelprofiles = mp, other = other, ratio = ratio, target = target,
             met = met, stringsAsFactors = FALSE)
}
yes_no <- function(x) ifelse(is.na(x), "—", ifelse(x, "yes", "no"))

best_peer <- function(S, exclude) {
  t <- vapply(S, function(x) med(x$times), numeric(1))
  t <- t[!names(t) %in% exclude & !startsWith(names(t), "floor") & !startsWith(names(t), "modelprofiles") & !is.na(t)]
  if (!length(t)) return(NULL)
  list(name = names(which.min(t)), time = min(t))
}

summary_rows <- function(id, tab, S, settings) {
  short <- c(A = "A. ranger PD, predict()", B = "B. ranger AL, default call", C = "C. lm PD, default call",
             D1 = "D1. ranger 300 trees PD", D2 = "D2. ranger 500 trees PD (bench-native)",
             E = "E.", F = "F. peak memory,")
  t <- function(m) med(S[[m]]$times)
  if (id == "A") {
    mp <- t("modelprofiles")
    fl <- t("floor, grid-major")
    bp <- best_peer(S, character())
    rbind(srow(short[["A"]], fmt_s(mp), paste("grid-major floor", fmt_s(fl)), fmt(mp / fl), "mp / floor ≤ 0.65", yes_no(mp / fl <= 0.65)),
          srow(paste(short[["A"]], "(others)"), fmt_s(mp),
               sprintf("observation-major floor %s; best peer %s %s", fmt_s(t("floor, observation-major")), bp$name %||% "—", fmt_s(bp$time %||% NA)),
               sprintf("%s; %s", fmt(mp / t("floor, observation-major")), fmt(mp / (bp$time %||% NA))), "—", "—"))
  } else if (id == "B") {
    mp <- t("modelprofiles")
    ep <- t("effectplots")
    bp <- best_peer(S, character())
    rbind(srow(short[["B"]], fmt_s(mp), paste("effectplots", fmt_s(ep)), fmt(ep / mp), "effectplots / mp ≥ 3", yes_no(ep / mp >= 3)),
          srow(paste(short[["B"]], "(others)"), fmt_s(mp),
               sprintf("2n floor %s; best peer %s %s", fmt_s(t("floor, 2n rows")), bp$name %||% "—", fmt_s(bp$time %||% NA)),
               sprintf("%s; %s", fmt(mp / t("floor, 2n rows")), fmt(mp / (bp$time %||% NA))), "—", "—"))
  } else if (id == "C") {
    mp <- t("modelprofiles")
    mp0 <- t("modelprofiles, keep_ice = FALSE")
    pd <- t("pdp")
    rbind(srow(short[["C"]], fmt_s(mp), paste("pdp", fmt_s(pd)), fmt(mp / pd), "mp / pdp ≤ 0.5", yes_no(mp / pd <= 0.5)),
          srow("C. lm PD, keep_ice = FALSE", fmt_s(mp0), paste("pdp", fmt_s(pd)), fmt(mp0 / pd), "— (mp / pdp)", "—"),
          srow(paste(short[["C"]], "(floor)"), fmt_s(mp), paste("grid-major floor", fmt_s(t("floor, grid-major"))),
               fmt(mp / t("floor, grid-major")), "— (mp / floor)", "—"))
  } else if (id %in% c("D1", "D2")) {
    nat <- t("engine = \"native\"")
    pre <- t("engine = \"predict\"")
    same <- attr(tab, "identical")
    srow(short[[id]], paste("native", fmt_s(nat)), paste("predict()", fmt_s(pre)), fmt(pre / nat),
         "predict / native ≥ 50, identical",
         sprintf("%s (numbers %s)", yes_no(pre / nat >= 50 && same), if (same) "identical" else "NOT identical"))
  } else if (id == "E") {
    if (is.null(tab)) return(NULL)
    do.call(rbind, lapply(seq_len(nrow(tab)), function(i) {
      srow(sprintf("E. %s, %s", tab$entry[i], if (tab$variant[i] == "default") "ranger predict()" else "predict(num.threads = 1)"),
           paste("multisession", fmt_s(tab$multisession[i])), paste("sequential", fmt_s(tab$sequential[i])),
           fmt(tab$speedup[i]), "sequential / multisession ≥ 1.7, identical",
           sprintf("%s (numbers %s)", yes_no(tab$speedup[i] >= 1.7 && tab$identical[i]),
                   if (isTRUE(tab$identical[i])) "identical" else "NOT identical"))
    }))
  } else if (id == "F") {
    do.call(rbind, lapply(seq_len(nrow(tab)), function(i) {
      srow(sprintf("F. peak memory, %s, %s rows", tab$model[i], format(settings$F_n, big.mark = ",", scientific = FALSE)),
           sprintf("+%s MiB", fmt(tab$above_base[i])),
           sprintf("data + budget = %s MiB", fmt(tab$data_mib[i] + tab$budget[i])),
           fmt(tab$above_base[i] / (tab$data_mib[i] + tab$budget[i])), "peak / (data + budget) ≤ 1",
           yes_no(tab$within[i]))
    }))
  }
}

summary_md <- function(sm) {
  c("| workload | modelprofiles | best peer / floor | ratio | target | met? |",
    "|---|---|---|---:|---|---|",
    sprintf("| %s | %s | %s | %s | %s | %s |", sm$workload, sm$modelprofiles, sm$other, sm$ratio, sm$target, sm$met))
}

# ---- Main ------------------------------------------------------------------------------------

main <- function() {
  settings <- speed_settings()
  t_start <- Sys.time()
  load_start <- load_average()
  lib <- settings$lib
  if (!is.null(lib)) {
    # The worker processes, and future's workers they start, find this
    # modelprofiles first.
    Sys.setenv(R_LIBS = paste(c(lib, strsplit(Sys.getenv("R_LIBS"), ":")[[1]]), collapse = ":"))
  }
  suppressPackageStartupMessages(library(modelprofiles, lib.loc = lib))
  stopifnot(requireNamespace("ranger", quietly = TRUE))
  settings$budget <- getOption("modelprofiles.memory_budget", 256)
  # F: the largest number of grid points (at least 2) at which the ICE curves
  # of F's variables fit in the budget (about 48 bytes per point).
  settings$F_grid <- as.integer(env_num("BENCH_F_GRID", min(51, max(2, floor(settings$budget * 2^20 / (48 * settings$F_n * length(settings$F_vars)))))))
  out_md <- Sys.getenv("BENCH_OUT", if (settings$quick) file.path(Sys.getenv("TMPDIR", "/tmp"), "bench-speed-quick.md") else
    file.path(dirname(script_path()), "results", "bench-speed.md"))
  cache <- Sys.getenv("MODELPROFILES_BENCH_CACHE")
  if (!nzchar(cache)) cache <- file.path(tempdir(), "cache")
  dir.create(cache, showWarnings = FALSE, recursive = TRUE)
  tmp <- tempfile("bench-speed-")
  dir.create(tmp)
  if (!settings$use_callr) message("callr is not installed: the workers run through Rscript")

  wls <- make_workloads(settings, tmp, cache)
  results <- list()
  for (id in names(wls)) {
    message("== ", wls[[id]]$title)
    results[[id]] <- run_workload(wls[[id]], settings)
  }

  # Tables ---------------------------------------------------------------------
  tables <- list()
  summary <- list()
  checks <- character()
  for (id in names(wls)) {
    wl <- wls[[id]]
    S <- summarise_runs(results[[id]])
    tab <- switch(wl$kind,
      PD = , AL = {
        eff_ref <- NULL
        ep <- S[["effectplots"]]$first$profile
        sc <- readRDS(wl$rds)
        if (wl$kind == "PD" && !is.null(ep)) {
          # modelprofiles at effectplots' points (not timed).
          splits <- split(ep$x, ep$var)
          r <- do.call(modelprofiles::model_profile, c(list(sc$model, sc$X, variables = names(splits), N = NULL,
                                                            variable_splits = splits, keep_ice = FALSE), sc$mp_args))
          eff_ref <- mp_out(r)$profile
        }
        g <- S[["modelprofiles"]]$first$info$grids
        if (!is.null(g)) {
          want <- if (wl$kind == "PD") sc$grids else sc$edges
          same <- all(vapply(names(want), function(v) isTRUE(all.equal(g[[v]], want[[v]])), logical(1)))
          checks <- c(checks, sprintf("%s: modelprofiles' %s %s the %s given to the peers.", id,
                                      if (wl$kind == "PD") "grid" else "edges", if (!same) "DIFFER FROM" else if (wl$kind == "PD") "equals" else "equal",
                                      if (wl$kind == "PD") "type-7 quantile grid" else "ALEPlot edges"))
        }
        profile_table(wl, S, eff_ref)
      },
      engine = engine_table(S),
      parallel = parallel_table(S),
      memory = memory_table(S, settings$budget)
    )
    tables[[id]] <- tab
    summary[[id]] <- summary_rows(id, tab, S, settings)
  }
  sm <- do.call(rbind, summary)
  rownames(sm) <- NULL

  # Output ---------------------------------------------------------------------
  have <- function(p) requireNamespace(p, quietly = TRUE)
  pkgs <- c("DALEX", "iml", "pdp", "hstats", "effectplots", "ALEPlot", "ranger", "future", "callr")
  versions <- vapply(pkgs, function(p) if (have(p)) as.character(utils::packageVersion(p)) else "not installed", "")
  cpu <- tryCatch(sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]), error = function(e) "unknown")
  mem_gb <- tryCatch(round(as.numeric(gsub("[^0-9]", "", grep("MemTotal", readLines("/proc/meminfo"), value = TRUE))) / 2^20, 1),
                     error = function(e) NA)
  desc <- utils::packageDescription("modelprofiles", lib.loc = lib)
  built <- if (!is.null(desc$Built)) sub(".*; (\\d{4}-[^;]*);.*", "\\1", desc$Built) else "?"
  loads <- unlist(lapply(results, function(r) lapply(r$runs, function(rs) vapply(rs, function(x) x$load[1] %||% NA_real_, numeric(1)))))
  load_end <- load_average()
  wall <- as.numeric(difftime(Sys.time(), t_start, units = "mins"))
  header <- c(
    "# modelprofiles speed targets (inst/bench/bench-speed.R)",
    "",
    sprintf("- Date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    if (nzchar(Sys.getenv("BENCH_NOTE"))) sprintf("- %s", Sys.getenv("BENCH_NOTE")),
    sprintf("- %s; %s", R.version.string, utils::sessionInfo()$running),
    sprintf("- Machine: %s, %d cores, %s GB RAM", cpu, parallel::detectCores(), mem_gb),
    sprintf("- modelprofiles %s from %s (built %s); threads = %d, memory_budget = %s MiB",
            desc$Version, dirname(find.package("modelprofiles", lib.loc = lib)), built,
            modelprofiles::profile_threads(), settings$budget),
    sprintf("- Packages: %s", paste(names(versions), versions, collapse = ", ")),
    if (settings$quick) "- **QUICK MODE (BENCH_QUICK=1): small data, not for results**",
    sprintf("- Whole run: %.1f min; workloads: %s", wall, paste(names(wls), collapse = ", ")),
    sprintf("- Load average (1, 5, 15 min) at the start %s, at the end %s; 1-min load before each timed call: median %s, range %s to %s (2 cores: above ~1, other work shared the CPU)",
            paste(sprintf("%.2f", load_start), collapse = "/"), paste(sprintf("%.2f", load_end), collapse = "/"),
            fmt(med(loads)), fmt(min(loads, na.rm = TRUE)), fmt(max(loads, na.rm = TRUE))),
    "",
    sprintf("Every run is a fresh R process (%s) timing the first call there (the floors: their predict() calls alone, stacking not timed); runs alternate across the methods of a workload; medians of up to %d runs (a method whose first run took over %g s ran once, over %g s for the two sides of a target). `peak MiB`: VmHWM during the call minus the RSS before it. ranger predicts with all cores (its default), as modelprofiles' predict() path does.",
            if (settings$use_callr) "callr" else "Rscript", settings$reps, settings$slow, settings$slow_ref),
    ""
  )
  body <- c("## Summary", "", summary_md(sm), "")
  for (id in names(wls)) {
    wl <- wls[[id]]
    tab <- tables[[id]]
    body <- c(body, paste("##", wl$title), "")
    body <- c(body, switch(wl$kind,
      PD = , AL = profile_md(tab, wl),
      engine = engine_md(tab),
      parallel = if (is.null(tab)) "No results." else c(parallel_md(tab), "",
        "Each process times the three calls once with each predict function, after a small untimed call that starts the workers and loads modelprofiles and ranger on them (and warms the sequential process alike)."),
      memory = c(memory_md(tab), "", "Each model in a fresh process: the RSS before the data is after loading R, modelprofiles and the model; the data are made column by column, then VmHWM is reset (/proc/self/clear_refs) before the call.")
    ), "")
  }
  body <- c(body, "## Checks", "", if (length(checks)) paste("-", checks) else "- none", "")
  md <- c(header, body)
  cat(md, sep = "\n")
  dir.create(dirname(out_md), showWarnings = FALSE, recursive = TRUE)
  writeLines(md, out_md)
  strip_run <- function(r) { r$ice <- NULL; r }
  saveRDS(list(settings = settings, summary = sm, tables = tables, wall_minutes = wall,
               load = list(start = load_start, end = load_end, runs = loads), versions = versions,
               runs = lapply(results, function(r) lapply(r$runs, function(rs) lapply(rs, strip_run)))),
          sub("\\.md$", ".rds", out_md))
  message("written: ", out_md, sprintf(" (%.1f min)", wall))
  invisible(sm)
}

if (sys.nframe() == 0L) main()
