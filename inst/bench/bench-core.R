# Benchmark of modelprofiles against other R packages for partial-dependence
# (PD) and accumulated-local (AL/ALE) profiles.
#
#   Rscript inst/bench/bench-core.R
#
# Takes about 16 minutes on an idle 2-core machine, 6 of them iml's PD of one
# feature of the lm (iml is superlinear in the n x grid rows).
#
# Compares, on the same model and background rows, as ratios:
#   modelprofiles::model_profile, DALEX::model_profile, iml::FeatureEffect
#   ("pdp", "ale"), pdp::partial, hstats::partial_dep (hstats has no ALE),
#   effectplots::partial_dependence / ale, ALEPlot::ALEPlot (when installed);
# against the floor: the predict() calls alone on the stacked rows a PD needs
# (n x grid rows per feature), and the 2 x n rows per feature an AL needs.
#
# Scenarios: (a) ranger forest, 100 trees, 5,000 rows; (b) lm with
# interactions, 100,000 rows. 8 numeric features (some correlated); PD on 51
# type-7 quantile grid points of every feature, AL with K = 50 (ALEPlot's
# edges) for every feature; all background rows (N = NULL).
#
# Every method runs in a fresh R process (callr) that loads the model and the
# data from an .rds file; the peak memory is VmHWM (reset through
# /proc/self/clear_refs after loading) minus the resident size after loading.
# Results go to stdout and to inst/bench/results/bench-core.md.
#
# Environment variables:
#   MODELPROFILES_LIB  library to load modelprofiles from (default: .libPaths())
#   BENCH_QUICK=1      small data, for checking the script (not for results)
#   BENCH_OUT          output markdown file (default inst/bench/results/bench-core.md
#                      next to this script)

# ---------------------------------------------------------------------------
# Settings
# ---------------------------------------------------------------------------

bench_settings <- function() {
  quick <- identical(Sys.getenv("BENCH_QUICK"), "1")
  list(
    quick = quick,
    n_rf = if (quick) 500L else 5000L,
    n_lm = if (quick) 2000L else 100000L,
    grid_points = 51L,
    K = 50L,
    p = 8L,
    # Repetitions: a first run shorter than `fast` seconds is followed by more
    # runs, up to `reps` in all (median reported); slower ones run once.
    fast = c(2, 12),
    reps = c(5L, 3L),
    # the references of the ratios (floor, modelprofiles) run in `rounds`
    # fresh processes each, alternating, against drifts of the machine's speed
    rounds = 3L
  )
}

mp_lib <- function() {
  lib <- Sys.getenv("MODELPROFILES_LIB")
  if (nzchar(lib)) lib else NULL
}

# ---------------------------------------------------------------------------
# Data and models
# ---------------------------------------------------------------------------

make_data <- function(n, seed) {
  set.seed(seed)
  z1 <- rnorm(n); z2 <- rnorm(n); z3 <- rnorm(n)
  X <- data.frame(
    x1 = z1,                                  # x1, x2 correlated (rho = 0.8)
    x2 = 0.8 * z1 + 0.6 * z2,
    x3 = z3,                                  # x3, x4 correlated (rho = 0.5)
    x4 = 0.5 * z3 + sqrt(0.75) * rnorm(n),
    x5 = runif(n, -2, 2),
    x6 = rexp(n),                             # skewed
    x7 = rnorm(n),
    x8 = 0.6 * z1 + 0.8 * runif(n, -1.7, 1.7) # correlated with x1, x2
  )
  y <- sin(X$x1) + X$x2 * X$x3 + 0.5 * X$x4^2 + X$x5 + log1p(X$x6) +
    0.5 * X$x7 * X$x8 + rnorm(n, sd = 0.3)
  list(X = X, y = y)
}

pd_grid <- function(x, G) unique(stats::quantile(x, seq(0, 1, length.out = G), names = FALSE))
ale_edges <- function(x, K) {
  unique(c(min(x), as.numeric(stats::quantile(x, seq(1 / K, 1, length.out = K), type = 1))))
}

pred_fun_for <- function(model) {
  if (inherits(model, "ranger")) {
    function(model, newdata) stats::predict(model, data = newdata)$predictions
  } else {
    function(model, newdata) stats::predict(model, newdata)
  }
}

# ---------------------------------------------------------------------------
# Methods. Each takes (model, X, pf, vars, grids, edges, n) and returns a data
# frame (var, x, yhat). AL methods return the profile at the edges.
# ---------------------------------------------------------------------------

bind_profiles <- function(lst) do.call(rbind, lst)

# Elapsed and CPU (user + system, all threads of this process) seconds.
clock <- function() {
  p <- proc.time()
  c(p[["elapsed"]], p[["user.self"]] + p[["sys.self"]])
}

# Rows `idx` of data frame X, fast, with automatic row names (explicit row
# names would make predict() build names for every row).
stack_rows <- function(X, idx) {
  structure(lapply(X, function(col) col[idx]), names = names(X),
            class = "data.frame", row.names = .set_row_names(length(idx)))
}

methods_pd <- list(
  floor = function(model, X, pf, vars, grids, edges, n) {
    # One predict() per feature on its n x G stacked rows; only predict() is
    # timed (the stacking is not), the time is returned as attribute. Rows in
    # modelprofiles' order (each background row repeated over the grid), with
    # automatic row names (explicit ones make predict() build names).
    t <- c(0, 0)
    out <- list()
    for (v in vars) {
      g <- grids[[v]]
      nd <- stack_rows(X, rep(seq_len(nrow(X)), each = length(g)))
      nd[[v]] <- rep(g, times = nrow(X))
      t0 <- clock()
      y <- pf(model, nd)
      t <- t + clock() - t0
      rm(nd)
      out[[v]] <- data.frame(var = v, x = g, yhat = rowMeans(matrix(y, length(g))))
      rm(y)
    }
    structure(bind_profiles(out), timed = t)
  },
  `floor, n rows per call` = function(model, X, pf, vars, grids, edges, n) {
    # The same predictions, one predict() call per grid point (n rows each),
    # as pdp does; only predict() is timed.
    t <- c(0, 0)
    out <- list()
    for (v in vars) {
      g <- grids[[v]]
      nd <- stack_rows(X, seq_len(nrow(X)))
      yhat <- numeric(length(g))
      for (i in seq_along(g)) {
        nd[[v]] <- rep(g[i], nrow(X))
        t0 <- clock()
        y <- pf(model, nd)
        t <- t + clock() - t0
        yhat[i] <- mean(y)
      }
      out[[v]] <- data.frame(var = v, x = g, yhat = yhat)
    }
    structure(bind_profiles(out), timed = t)
  },
  modelprofiles = function(model, X, pf, vars, grids, edges, n) {
    r <- modelprofiles::model_profile(model, X, variables = vars, N = NULL,
                                      grid_points = length(grids[[1]]))
    a <- r$agr_profiles
    structure(data.frame(var = a$`_vname_`, x = a$`_x_`, yhat = a$`_yhat_`),
              n_predictions = r$n_predictions, grids = r$grids)
  },
  `modelprofiles keep_ice=FALSE` = function(model, X, pf, vars, grids, edges, n) {
    r <- modelprofiles::model_profile(model, X, variables = vars, N = NULL,
                                      grid_points = length(grids[[1]]), keep_ice = FALSE)
    a <- r$agr_profiles
    structure(data.frame(var = a$`_vname_`, x = a$`_x_`, yhat = a$`_yhat_`),
              n_predictions = r$n_predictions)
  },
  DALEX = function(model, X, pf, vars, grids, edges, n) {
    e <- DALEX::explain(model, data = X, predict_function = pf, verbose = FALSE,
                        precalculate = FALSE)
    r <- DALEX::model_profile(e, variables = vars, N = NULL,
                              variable_splits = grids[vars])
    a <- r$agr_profiles
    data.frame(var = as.character(a$`_vname_`), x = a$`_x_`, yhat = a$`_yhat_`)
  },
  `iml pdp` = function(model, X, pf, vars, grids, edges, n) {
    p <- iml::Predictor$new(model, data = X, predict.function = pf)
    bind_profiles(lapply(vars, function(v) {
      r <- iml::FeatureEffect$new(p, v, method = "pdp", grid.points = grids[[v]])$results
      data.frame(var = v, x = r[[v]], yhat = r$.value)
    }))
  },
  pdp = function(model, X, pf, vars, grids, edges, n) {
    bind_profiles(lapply(vars, function(v) {
      g <- stats::setNames(data.frame(grids[[v]]), v)
      r <- pdp::partial(model, pred.var = v, pred.grid = g, train = X,
                        type = "regression", check.class = FALSE)
      data.frame(var = v, x = r[[v]], yhat = r$yhat)
    }))
  },
  `pdp batch.size=1e6` = function(model, X, pf, vars, grids, edges, n) {
    bind_profiles(lapply(vars, function(v) {
      g <- stats::setNames(data.frame(grids[[v]]), v)
      r <- pdp::partial(model, pred.var = v, pred.grid = g, train = X,
                        type = "regression", check.class = FALSE, batch.size = 1e6)
      data.frame(var = v, x = r[[v]], yhat = r$yhat)
    }))
  },
  hstats = function(model, X, pf, vars, grids, edges, n) {
    bind_profiles(lapply(vars, function(v) {
      r <- hstats::partial_dep(model, v = v, X = X, pred_fun = pf,
                               grid = grids[[v]], n_max = nrow(X))$data
      data.frame(var = v, x = r[[v]], yhat = r$y)
    }))
  },
  effectplots = function(model, X, pf, vars, grids, edges, n) {
    # effectplots evaluates PD at the mean of x in each bin of `breaks`; with
    # G + 1 quantile breaks it gives G points (not the shared grid).
    br <- lapply(vars, function(v) pd_grid(X[[v]], length(grids[[v]]) + 1L))
    names(br) <- vars
    r <- effectplots::partial_dependence(model, v = vars, data = X, pred_fun = pf,
                                         breaks = br, pd_n = nrow(X), outlier_iqr = Inf)
    bind_profiles(lapply(vars, function(v) {
      d <- r[[v]]
      data.frame(var = v, x = d$bin_mean, yhat = d$pd)
    }))
  }
)

methods_al <- list(
  floor = function(model, X, pf, vars, grids, edges, n) {
    # One predict() per feature on 2 x n rows (each row at the lower and the
    # upper edge of its interval); only predict() is timed.
    t <- c(0, 0)
    out <- list()
    for (v in vars) {
      e <- edges[[v]]
      k <- findInterval(X[[v]], e, left.open = TRUE, all.inside = TRUE)
      nd <- stack_rows(X, c(seq_len(nrow(X)), seq_len(nrow(X))))
      nd[[v]] <- c(e[k], e[k + 1L])
      t0 <- clock()
      y <- pf(model, nd)
      t <- t + clock() - t0
      d <- y[nrow(X) + seq_len(nrow(X))] - y[seq_len(nrow(X))]
      inc <- as.numeric(tapply(d, factor(k, seq_len(length(e) - 1L)), mean))
      out[[v]] <- data.frame(var = v, x = e, yhat = c(0, cumsum(inc)))
    }
    structure(bind_profiles(out), timed = t)
  },
  modelprofiles = function(model, X, pf, vars, grids, edges, n) {
    r <- modelprofiles::model_profile(model, X, variables = vars, N = NULL,
                                      type = "accumulated", intervals = length(edges[[1]]) - 1L)
    a <- r$agr_profiles
    structure(data.frame(var = a$`_vname_`, x = a$`_x_`, yhat = a$`_yhat_`),
              n_predictions = r$n_predictions, grids = r$grids)
  },
  DALEX = function(model, X, pf, vars, grids, edges, n) {
    # DALEX's "accumulated" type is ingredients' estimator built on the
    # ceteris-paribus profiles (not Apley's intervals); profiled at the edges.
    e <- DALEX::explain(model, data = X, predict_function = pf, verbose = FALSE,
                        precalculate = FALSE)
    r <- DALEX::model_profile(e, variables = vars, N = NULL, type = "accumulated",
                              variable_splits = edges[vars])
    a <- r$agr_profiles
    data.frame(var = as.character(a$`_vname_`), x = a$`_x_`, yhat = a$`_yhat_`)
  },
  `iml ale` = function(model, X, pf, vars, grids, edges, n) {
    p <- iml::Predictor$new(model, data = X, predict.function = pf)
    bind_profiles(lapply(vars, function(v) {
      r <- iml::FeatureEffect$new(p, v, method = "ale", grid.points = edges[[v]])$results
      data.frame(var = v, x = r[[v]], yhat = r$.value)
    }))
  },
  effectplots = function(model, X, pf, vars, grids, edges, n) {
    # ale_bin_size = n: every row is used (the default samples 200 per bin).
    r <- effectplots::ale(model, v = vars, data = X, pred_fun = pf,
                          breaks = edges[vars], ale_n = nrow(X),
                          ale_bin_size = nrow(X), outlier_iqr = Inf)
    bind_profiles(lapply(vars, function(v) {
      # values at the upper edges of the bins; 0 at the lowest edge
      data.frame(var = v, x = edges[[v]], yhat = c(0, r[[v]]$ale))
    }))
  },
  ALEPlot = function(model, X, pf, vars, grids, edges, n) {
    grDevices::pdf(NULL)
    on.exit(grDevices::dev.off())
    bind_profiles(lapply(vars, function(v) {
      r <- ALEPlot::ALEPlot(X, model, pred.fun = function(X.model, newdata) pf(X.model, newdata),
                            J = match(v, names(X)),
                            K = length(edges[[v]]) - 1L)
      data.frame(var = v, x = r$x.values, yhat = r$f.values)
    }))
  }
)

method_package <- c(
  modelprofiles = "modelprofiles", `modelprofiles keep_ice=FALSE` = "modelprofiles",
  DALEX = "DALEX", `iml pdp` = "iml", `iml ale` = "iml", pdp = "pdp",
  `pdp batch.size=1e6` = "pdp", hstats = "hstats", effectplots = "effectplots",
  ALEPlot = "ALEPlot", floor = NA, `floor, n rows per call` = NA
)

# ---------------------------------------------------------------------------
# Worker: runs in a fresh R process
# ---------------------------------------------------------------------------

status_kb <- function(field) {
  s <- readLines("/proc/self/status")
  l <- grep(paste0("^", field, ":"), s, value = TRUE)
  as.numeric(gsub("[^0-9]", "", l)) # kB
}

worker <- function(rds, type, method, vars, settings, lib) {
  pkg <- method_package[[method]]
  if (!is.na(pkg)) {
    if (pkg == "modelprofiles") {
      suppressPackageStartupMessages(library(modelprofiles, lib.loc = lib))
    } else {
      suppressPackageStartupMessages(loadNamespace(pkg))
    }
  }
  sc <- readRDS(rds)
  model <- sc$model
  if (inherits(model, "ranger")) suppressPackageStartupMessages(loadNamespace("ranger"))
  X <- sc$X
  pf <- pred_fun_for(model)
  fn <- (if (type == "PD") methods_pd else methods_al)[[method]]
  invisible(gc(full = TRUE))
  reset_ok <- tryCatch({ cat("5", file = "/proc/self/clear_refs"); TRUE },
                       error = function(e) FALSE)
  rss0 <- status_kb("VmRSS")
  hwm0 <- status_kb("VmHWM")
  times <- cpu <- numeric()
  res <- NULL
  load0 <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  repeat {
    t0 <- clock()
    r <- suppressMessages(suppressWarnings(
      fn(model, X, pf, vars, sc$grids, sc$edges, nrow(X))
    ))
    t <- clock() - t0
    if (!is.null(attr(r, "timed"))) t <- attr(r, "timed")
    if (is.null(res)) {
      hwm1 <- status_kb("VmHWM")
      res <- r
    }
    times <- c(times, t[1])
    cpu <- c(cpu, t[2])
    rm(r)
    invisible(gc())
    max_reps <- if (times[1] < settings$fast[1]) settings$reps[1] else
      if (times[1] < settings$fast[2]) settings$reps[2] else 1L
    if (length(times) >= max_reps) break
  }
  list(times = times, cpu = cpu, load = load0,
       peak_mb = (hwm1 - (if (reset_ok) rss0 else hwm0)) / 1024,
       reset_ok = reset_ok, result = res,
       n_predictions = attr(res, "n_predictions"), grids = attr(res, "grids"))
}

run_in_subprocess <- function(script, rds, type, method, vars, settings, lib) {
  callr::r(
    function(script, rds, type, method, vars, settings, lib) {
      Sys.setenv(BENCH_CORE_WORKER = "1")
      e <- new.env()
      sys.source(script, envir = e)
      e$worker(rds, type, method, vars, settings, lib)
    },
    args = list(script, rds, type, method, vars, settings, lib),
    show = FALSE, timeout = 1800
  )
}

# ---------------------------------------------------------------------------
# Agreement
# ---------------------------------------------------------------------------

# Max abs difference of `res` to `ref` over matching (var, x) points. For AL
# both are centred to mean 0 over the grid of each variable first.
max_diff <- function(res, ref, center = FALSE) {
  d <- c()
  for (v in unique(res$var)) {
    a <- res[res$var == v, ]
    b <- ref[ref$var == v, ]
    tol <- 1e-9 * max(1, abs(b$x))
    i <- vapply(a$x, function(x) {
      j <- which(abs(b$x - x) <= tol)
      if (length(j)) j[1] else NA_integer_
    }, integer(1))
    if (anyNA(i)) return(NA_real_) # grids differ
    ya <- a$yhat; yb <- b$yhat[i]
    if (center) { ya <- ya - mean(ya); yb <- yb - mean(yb) }
    d <- c(d, max(abs(ya - yb)))
  }
  max(d)
}

# ---------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------

fmt <- function(x, digits = 3) {
  ifelse(is.na(x), "—", formatC(signif(x, digits), format = "fg", digits = digits, flag = "#"))
}
fmt_sci <- function(x) ifelse(is.na(x), "—", formatC(x, format = "e", digits = 1))

main <- function() {
  settings <- bench_settings()
  args <- commandArgs(trailingOnly = FALSE)
  script <- normalizePath(sub("^--file=", "", grep("^--file=", args, value = TRUE)[1]))
  out_md <- Sys.getenv("BENCH_OUT", file.path(dirname(script), "results", "bench-core.md"))
  lib <- mp_lib()
  suppressPackageStartupMessages(library(modelprofiles, lib.loc = lib))
  stopifnot(requireNamespace("callr", quietly = TRUE), requireNamespace("ranger", quietly = TRUE))
  t_start <- Sys.time()
  tmp <- tempfile("bench-core-")
  dir.create(tmp)

  have <- function(p) requireNamespace(p, quietly = TRUE)
  pkgs <- c("modelprofiles", "DALEX", "ingredients", "iml", "pdp", "hstats",
            "effectplots", "ALEPlot", "ranger", "callr", "xgboost")
  versions <- vapply(pkgs, function(p) {
    if (p == "modelprofiles") return(as.character(utils::packageVersion(p, lib.loc = lib)))
    if (have(p)) as.character(utils::packageVersion(p)) else "not installed"
  }, character(1))

  # Scenarios --------------------------------------------------------------
  vars <- paste0("x", 1:settings$p)
  d_rf <- make_data(settings$n_rf, 1)
  rf <- ranger::ranger(x = d_rf$X, y = d_rf$y, num.trees = 100, num.threads = 2, seed = 1)
  d_lm <- make_data(settings$n_lm, 2)
  fit_lm <- stats::lm(y ~ x1 * x2 + x3 * x4 + x5 * x6 + x7 * x8, data = cbind(d_lm$X, y = d_lm$y))
  scen <- list(
    ranger = list(model = rf, X = d_rf$X,
                  label = sprintf("(a) ranger, 100 trees, n = %s", format(settings$n_rf, big.mark = ","))),
    lm = list(model = fit_lm, X = d_lm$X,
              label = sprintf("(b) lm with 4 interactions (13 coefficients), n = %s",
                              format(settings$n_lm, big.mark = ",")))
  )
  for (s in names(scen)) {
    X <- scen[[s]]$X
    scen[[s]]$grids <- lapply(X, pd_grid, G = settings$grid_points)
    scen[[s]]$edges <- lapply(X, ale_edges, K = settings$K)
    scen[[s]]$rds <- file.path(tmp, paste0(s, ".rds"))
    saveRDS(scen[[s]][c("model", "X", "grids", "edges")], scen[[s]]$rds)
  }

  # Plan: which methods, on which features. Slow packages on the large lm
  # get fewer features; their time is scaled to 8 features.
  plan <- list()
  add <- function(s, type, method, nv = settings$p, skip = NULL) {
    if (!is.na(method_package[[method]]) && !have(method_package[[method]])) {
      message("skipping ", method, ": package not installed")
      skip <- "package not installed"
    }
    plan[[length(plan) + 1L]] <<- list(s = s, type = type, method = method,
                                       vars = vars[seq_len(nv)], skip = skip)
  }
  # Slow packages get fewer features (time scaled to 8 features); variants
  # that add nothing for a model are left out.
  pd_methods <- list(
    ranger = c("floor", "floor, n rows per call", "modelprofiles", "DALEX", "iml pdp", "pdp",
               "hstats", "effectplots"),
    lm = c("floor", "floor, n rows per call", "modelprofiles", "modelprofiles keep_ice=FALSE", "DALEX", "iml pdp",
           "pdp", "pdp batch.size=1e6", "hstats", "effectplots")
  )
  al_methods <- c("floor", "modelprofiles", "DALEX", "iml ale", "effectplots", "ALEPlot")
  features <- if (settings$quick) list() else list(
    ranger = list(PD = list(`floor, n rows per call` = 2L), AL = list(DALEX = 1L)),
    lm = list(PD = list(DALEX = 1L, `iml pdp` = 1L, `pdp batch.size=1e6` = 1L))
  )
  dalex_al_skip <- paste(
    "not run: ingredients' accumulated estimator splits the ICE table per row and",
    "rbinds the pieces, superlinear in n (1 feature of this lm: 12 s at n = 5,000,",
    "30 s at n = 10,000 on this machine); see (a) for its ratio"
  )
  refs <- c("floor", "modelprofiles")
  for (s in names(scen)) {
    for (r in seq_len(settings$rounds)) for (m in refs) add(s, "PD", m)
    for (m in setdiff(pd_methods[[s]], refs)) add(s, "PD", m, features[[s]]$PD[[m]] %||% settings$p)
    for (r in seq_len(settings$rounds)) for (m in refs) add(s, "AL", m)
    for (m in setdiff(al_methods, refs)) {
      add(s, "AL", m, features[[s]]$AL[[m]] %||% settings$p,
          skip = if (s == "lm" && m == "DALEX" && !settings$quick) dalex_al_skip)
    }
  }

  # Run ------------------------------------------------------------------------
  results <- list()
  for (i in seq_along(plan)) {
    p <- plan[[i]]
    key <- paste(p$s, p$type, p$method, sep = " | ")
    message(sprintf("[%s] %s (%d feature%s) ...", format(Sys.time(), "%H:%M:%S"), key,
                    length(p$vars), if (length(p$vars) > 1) "s" else ""))
    if (!is.null(p$skip)) {
      results[[key]] <- list(error = p$skip, skipped = TRUE, plan = p)
      next
    }
    r <- tryCatch(
      run_in_subprocess(script, scen[[p$s]]$rds, p$type, p$method, p$vars, settings, lib),
      error = function(e) {
        message("  FAILED: ", conditionMessage(e))
        list(error = conditionMessage(e))
      }
    )
    if (is.null(r$error)) {
      message(sprintf("  %.2f s (runs: %s; cpu %s), peak %.0f MB, load average before %.2f",
                      median(r$times), paste(sprintf("%.2f", r$times), collapse = ", "),
                      paste(sprintf("%.2f", r$cpu), collapse = ", "), r$peak_mb, r$load))
    }
    r$plan <- p
    r$processes <- 1L
    old <- results[[key]]
    if (!is.null(old) && is.null(old$error) && is.null(r$error)) {
      # another round of a reference: pool the runs, keep the first result
      old$times <- c(old$times, r$times)
      old$cpu <- c(old$cpu, r$cpu)
      old$peak_mb <- c(old$peak_mb, r$peak_mb)
      old$load <- c(old$load, r$load)
      old$processes <- old$processes + 1L
      r <- old
    }
    results[[key]] <- r
  }

  # Agreement references -------------------------------------------------------
  ref_of <- function(s, type) results[[paste(s, type, "modelprofiles", sep = " | ")]]$result
  # effectplots evaluates PD at its own points: the reference there is
  # modelprofiles at those points (computed here, not timed).
  ep_ref <- list()
  for (s in names(scen)) {
    ep <- results[[paste(s, "PD", "effectplots", sep = " | ")]]$result
    if (!is.null(ep)) {
      splits <- split(ep$x, ep$var)
      r <- modelprofiles::model_profile(scen[[s]]$model, scen[[s]]$X, variables = names(splits),
                                        N = NULL, variable_splits = splits, keep_ice = FALSE)
      a <- r$agr_profiles
      ep_ref[[s]] <- data.frame(var = a$`_vname_`, x = a$`_x_`, yhat = a$`_yhat_`)
    }
  }

  # Table ------------------------------------------------------------------------
  rows <- list()
  for (key in names(results)) {
    r <- results[[key]]
    p <- r$plan
    nv <- length(p$vars)
    scale <- settings$p / nv
    t_med <- if (is.null(r$error)) median(r$times) * scale else NA
    floor_t <- results[[paste(p$s, p$type, "floor", sep = " | ")]]
    floor_t <- if (!is.null(floor_t$times)) median(floor_t$times) else NA
    mp_t <- results[[paste(p$s, p$type, "modelprofiles", sep = " | ")]]
    mp_t <- if (!is.null(mp_t$times)) median(mp_t$times) else NA
    ref <- if (p$method == "effectplots" && p$type == "PD") ep_ref[[p$s]] else ref_of(p$s, p$type)
    diff <- if (is.null(r$error) && !is.null(ref) && p$method != "modelprofiles") {
      max_diff(r$result, ref, center = p$type == "AL")
    } else NA
    range_ref <- if (!is.null(ref)) max(tapply(ref$yhat, ref$var, function(y) diff(range(y)))) else NA
    notes <- c(
      if (nv < settings$p) sprintf("%d of 8 features run, time x%g", nv, scale),
      if (!is.null(r$times) && length(r$times) == 1L) "single run",
      if (!is.null(r$processes) && r$processes > 1L) sprintf("%d alternating processes", r$processes),
      if (grepl("^floor", p$method)) "predict() only",
      if (p$method == "effectplots" && p$type == "PD") "own grid (bin means); compared to modelprofiles there",
      if (p$method == "DALEX" && p$type == "AL") "ingredients' estimator, not Apley's",
      if (!is.null(r$n_predictions)) sprintf("%s predictions", format(r$n_predictions, big.mark = ",")),
      if (!is.null(r$error)) {
        if (isTRUE(r$skipped)) r$error else paste("FAILED:", gsub("[\r\n|]+", " ", substr(r$error, 1, 200)))
      }
    )
    rows[[key]] <- data.frame(
      scenario = p$s, type = p$type, method = p$method,
      runs = if (is.null(r$times)) 0L else length(r$times),
      seconds = t_med, x_floor = t_med / floor_t, x_mp = t_med / mp_t,
      cpu_seconds = if (is.null(r$error)) median(r$cpu) * scale else NA,
      peak_mb = if (is.null(r$peak_mb)) NA else median(r$peak_mb),
      max_abs_diff = diff, profile_range = range_ref,
      notes = paste(notes, collapse = "; "), stringsAsFactors = FALSE
    )
  }
  tab <- do.call(rbind, rows)
  rownames(tab) <- NULL

  # Checks on modelprofiles itself -------------------------------------------------
  checks <- character()
  for (s in names(scen)) {
    mp <- results[[paste(s, "PD", "modelprofiles", sep = " | ")]]
    if (!is.null(mp$grids)) {
      same <- all(vapply(vars, function(v) isTRUE(all.equal(mp$grids[[v]], scen[[s]]$grids[[v]])), logical(1)))
      checks <- c(checks, sprintf("%s PD: modelprofiles' own grid (grid_points = %d) %s the shared type-7 quantile grid; %s predictions (floor: %s).",
                                  s, settings$grid_points, if (same) "equals" else "DIFFERS FROM",
                                  format(mp$n_predictions, big.mark = ","),
                                  format(sum(lengths(scen[[s]]$grids)) * nrow(scen[[s]]$X), big.mark = ",")))
    }
    mp <- results[[paste(s, "AL", "modelprofiles", sep = " | ")]]
    if (!is.null(mp$grids)) {
      same <- all(vapply(vars, function(v) isTRUE(all.equal(mp$grids[[v]], scen[[s]]$edges[[v]])), logical(1)))
      checks <- c(checks, sprintf("%s AL: modelprofiles' edges %s ALEPlot's edges (K = %d); %s predictions (floor: %s = 2 x n x 8).",
                                  s, if (same) "equal" else "DIFFER FROM", settings$K,
                                  format(mp$n_predictions, big.mark = ","),
                                  format(2 * settings$p * nrow(scen[[s]]$X), big.mark = ",")))
    }
  }

  # Output ---------------------------------------------------------------------
  cpu <- tryCatch(sub(".*: ", "", grep("model name", readLines("/proc/cpuinfo"), value = TRUE)[1]),
                  error = function(e) "unknown")
  mem_gb <- tryCatch(round(as.numeric(gsub("[^0-9]", "", grep("MemTotal", readLines("/proc/meminfo"), value = TRUE))) / 2^20, 1),
                     error = function(e) NA)
  mp_desc <- utils::packageDescription("modelprofiles", lib.loc = lib)
  mp_built <- if (!is.null(mp_desc$Built)) sub(".*; (\\d{4}-[^;]*);.*", "\\1", mp_desc$Built) else "?"
  mp_path <- dirname(find.package("modelprofiles", lib.loc = lib))
  elapsed_total <- as.numeric(difftime(Sys.time(), t_start, units = "mins"))

  md <- c(
    "# modelprofiles core benchmark",
    "",
    sprintf("- Date: %s", format(Sys.time(), "%Y-%m-%d %H:%M %Z")),
    sprintf("- %s; %s", R.version.string, utils::sessionInfo()$running),
    sprintf("- Machine: %s, %d cores, %s GB RAM", cpu, parallel::detectCores(), mem_gb),
    sprintf("- modelprofiles %s (installed in %s, built %s; threads = %d, memory_budget = %s MiB)",
            versions[["modelprofiles"]], mp_path, mp_built, modelprofiles::profile_threads(),
            getOption("modelprofiles.memory_budget", 256)),
    sprintf("- Packages: %s", paste(sprintf("%s %s", names(versions)[-1], versions[-1]), collapse = ", ")),
    if (settings$quick) "- **QUICK MODE (BENCH_QUICK=1): small data, not for results**",
    sprintf("- Whole run: %.1f min", elapsed_total),
    sprintf("- Load average (1 min) before the methods: %s (2 cores: above ~1 other work shared the CPU and timings are inflated)",
            paste(sprintf("%.1f", range(unlist(lapply(results, `[[`, "load")))), collapse = " to ")),
    "",
    "Setup: 8 numeric features (x1, x2, x8 correlated; x3, x4 correlated; x6 skewed).",
    sprintf("PD: %d type-7 quantile grid points per feature, given to every package (effectplots: its own bin means, see notes).", settings$grid_points),
    sprintf("AL: ALEPlot's edges with K = %d, given to every package. All background rows (N = NULL). ranger fitted and predicting with 2 threads.", settings$K),
    "",
    "Columns: `s` = elapsed seconds for all 8 features (median of `runs`; scaled when fewer features were run);",
    "`x floor` = ratio to the floor (predict() alone on the stacked rows: n x 51 per feature for PD, 2 x n per feature for AL, one call per feature, stacking not timed;",
    "  rows in modelprofiles' order, each background row repeated over the grid, with automatic row names;",
    "  `floor, n rows per call`: the same PD predictions in one call per grid point);",
    "`x mp` = ratio to modelprofiles (default settings, keep_ice = TRUE);",
    "`cpu s` = user + system CPU seconds of the process (all threads; median, scaled like `s`);",
    sprintf("floor and modelprofiles run in %d alternating fresh processes each (their medians are the references); the others in one process.", settings$rounds),
    "`peak MB` = VmHWM during the first run minus RSS after loading model and data (fresh R process per method; median over processes; not scaled);",
    "`max |diff|` = max abs difference to modelprofiles' profile on the same points (AL: each profile centred to mean 0 over the edges first);",
    "`range` = largest range of a modelprofiles profile, for scale.",
    ""
  )
  for (s in names(scen)) {
    for (type in c("PD", "AL")) {
      d <- tab[tab$scenario == s & tab$type == type, ]
      if (!nrow(d)) next
      md <- c(md, sprintf("## %s — %s", scen[[s]]$label,
                          if (type == "PD") "partial dependence, 51 points x 8 features" else "accumulated local effects, K = 50 x 8 features"),
              "",
              "| method | runs | s | x floor | x mp | cpu s | peak MB | max abs diff | range | notes |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|")
      for (k in seq_len(nrow(d))) {
        md <- c(md, sprintf("| %s | %d | %s | %s | %s | %s | %s | %s | %s | %s |",
                            d$method[k], d$runs[k], fmt(d$seconds[k]), fmt(d$x_floor[k]),
                            fmt(d$x_mp[k]), fmt(d$cpu_seconds[k]), fmt(d$peak_mb[k]), fmt_sci(d$max_abs_diff[k]),
                            fmt(d$profile_range[k]), d$notes[k]))
      }
      md <- c(md, "")
    }
  }
  md <- c(md, "## Checks", "", paste("-", checks),
          "- hstats 1.2.2 has no ALE; pdp has no ALE.",
          sprintf("- ALEPlot: %s.", if (have("ALEPlot")) paste("installed", versions[["ALEPlot"]]) else "not installed, skipped"),
          sprintf("- xgboost (not used here): %s.", versions[["xgboost"]]),
          "")
  cat(md, sep = "\n")
  dir.create(dirname(out_md), showWarnings = FALSE, recursive = TRUE)
  writeLines(md, out_md)
  saveRDS(list(table = tab, results = lapply(results, function(r) r[c("times", "cpu", "load", "peak_mb", "n_predictions", "processes")])),
          sub("\\.md$", ".rds", out_md))
  message("written: ", out_md)
  invisible(tab)
}

`%||%` <- function(a, b) if (is.null(a)) b else a

if (sys.nframe() == 0L && !identical(Sys.getenv("BENCH_CORE_WORKER"), "1")) main()
