# Helpers of bench-speed.R (sourced by the driver and by every worker
# process; defines functions only): data and models, the methods each
# workload times, the worker that runs one method in a fresh R process, and
# the agreement checks. modelprofiles is used through its public interface
# only: model_profile(), h_statistic(), model_profile_2d(),
# compare_profiles() and their documented arguments.

`%||%` <- function(a, b) if (is.null(a)) b else a

# ---- Measuring -------------------------------------------------------------------

# Elapsed and CPU (user + system, all threads of this process) seconds.
clock <- function() {
  p <- proc.time()
  c(elapsed = p[["elapsed"]], cpu = p[["user.self"]] + p[["sys.self"]])
}

# A field of /proc/self/status in MiB (Linux), NA elsewhere.
status_mib <- function(field) {
  s <- tryCatch(readLines("/proc/self/status"), error = function(e) character())
  l <- grep(paste0("^", field, ":"), s, value = TRUE)
  if (!length(l)) return(NA_real_)
  as.numeric(gsub("[^0-9]", "", l)) / 1024
}

# Reset the peak resident size (VmHWM) to the current one.
reset_peak <- function() {
  tryCatch({ cat("5", file = "/proc/self/clear_refs"); TRUE }, error = function(e) FALSE)
}

load_average <- function() {
  tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1:3]),
           error = function(e) rep(NA_real_, 3))
}

# ---- Data and models ---------------------------------------------------------------

# bench-core.R's 8 numeric features (x1, x2, x8 correlated; x3, x4
# correlated; x6 skewed) and response.
make_data <- function(n, seed) {
  set.seed(seed)
  z1 <- rnorm(n); z2 <- rnorm(n); z3 <- rnorm(n)
  X <- data.frame(
    x1 = z1,
    x2 = 0.8 * z1 + 0.6 * z2,
    x3 = z3,
    x4 = 0.5 * z3 + sqrt(0.75) * rnorm(n),
    x5 = runif(n, -2, 2),
    x6 = rexp(n),
    x7 = rnorm(n),
    x8 = 0.6 * z1 + 0.8 * runif(n, -1.7, 1.7)
  )
  y <- sin(X$x1) + X$x2 * X$x3 + 0.5 * X$x4^2 + X$x5 + log1p(X$x6) +
    0.5 * X$x7 * X$x8 + rnorm(n, sd = 0.3)
  list(X = X, y = y)
}

# bench-native.R's data (10 features), exactly: the same forest, so that
# both scripts share the cached fit (nbench_fit_<n>.rds).
make_native_data <- function(n_fit, N) {
  set.seed(1)
  p <- 10
  X <- as.data.frame(matrix(rnorm(n_fit * p), n_fit, dimnames = list(NULL, paste0("x", 1:p))))
  X$x2 <- X$x1 + rnorm(n_fit, sd = 0.5)
  y <- X$x1 * X$x2 + sin(X$x3) + X$x4 * X$x5 + rnorm(n_fit)
  rows <- sample.int(n_fit, N)
  list(X = X, y = y, bg = X[rows, ])
}

# 10 numeric columns built one by one (no matrix copy: the data's size is
# the memory it takes), as in bench-parallel.R.
make_wide <- function(n, seed) {
  set.seed(seed)
  X <- as.data.frame(stats::setNames(lapply(1:10, function(i) rnorm(n)), paste0("x", 1:10)))
  y <- X$x1 * X$x2 + sin(X$x3) + X$x4 - X$x5 + rnorm(n)
  list(X = X, y = y)
}

pd_grid <- function(x, G) unique(stats::quantile(x, seq(0, 1, length.out = G), names = FALSE))
ale_edges <- function(x, K) {
  unique(c(min(x), as.numeric(stats::quantile(x, seq(1 / K, 1, length.out = K), type = 1))))
}

# The model's predict function as the peers are given it: for ranger the
# same call as modelprofiles' adapter (all cores, as ranger's default).
# Built in the global environment, so that a future ships nothing else.
pred_fun_for <- function(model, threads = NULL) {
  f <- if (inherits(model, "ranger")) {
    if (is.null(threads)) {
      function(model, newdata) stats::predict(model, data = newdata, verbose = FALSE)$predictions
    } else {
      function(model, newdata) stats::predict(model, data = newdata, num.threads = 1L, verbose = FALSE)$predictions
    }
  } else {
    function(model, newdata) stats::predict(model, newdata)
  }
  environment(f) <- globalenv()
  f
}

# Rows `idx` of data frame X with automatic row names (explicit ones make
# predict() build names for every row).
stack_rows <- function(X, idx) {
  structure(lapply(X, function(col) col[idx]), names = names(X),
            class = "data.frame", row.names = .set_row_names(length(idx)))
}

bind_rows <- function(lst) do.call(rbind, lst)

# The ICE curves a result keeps, counted without making DALEX's long frame
# (which modelprofiles makes only when $cp_profiles is read).
ice_count <- function(r) {
  cp <- .subset2(r, "cp_profiles")
  if (inherits(cp, "mp_ice")) {
    sum(vapply(.subset2(cp, "blocks"), function(b) length(b$x) * length(b$ids) * length(b$labels), numeric(1)))
  } else NROW(cp)
}
ice_variables <- function(r) {
  cp <- .subset2(r, "cp_profiles")
  if (inherits(cp, "mp_ice")) unique(vapply(.subset2(cp, "blocks"), `[[`, "", "v")) else unique(as.character(cp$`_vname_`))
}

# A modelprofiles result as (var, x, yhat) plus what the checks need.
mp_out <- function(r, ice = FALSE) {
  a <- r$agr_profiles
  list(profile = data.frame(var = a$`_vname_`, x = a$`_x_`, yhat = a$`_yhat_`),
       info = list(n_predictions = r$n_predictions, engine = r$engine, grids = r$grids,
                   ice_rows = ice_count(r), ice_vars = ice_variables(r)),
       ice = if (ice) r$cp_profiles$`_yhat_`)
}

# ---- Methods -----------------------------------------------------------------------
# Each method is function(sc, o) with sc the scenario (model, X, grids,
# edges, pf, mp_args, ...) and o the settings; it returns list(profile =
# data.frame(var, x, yhat), info = list(...)) and, when only part of it is
# timed, `timed` = c(elapsed, cpu). A method may instead be list(prepare =,
# run =): prepare(sc, o) runs before the clock and the memory reset.

mp_call <- function(fun, sc, ...) {
  do.call(fun, c(list(sc$model, sc$X), list(...), sc$mp_args))
}

methods_pd <- list(
  modelprofiles = function(sc, o) {
    mp_out(mp_call(modelprofiles::model_profile, sc, N = NULL, grid_points = o$G))
  },
  `modelprofiles, keep_ice = FALSE` = function(sc, o) {
    mp_out(mp_call(modelprofiles::model_profile, sc, N = NULL, grid_points = o$G, keep_ice = FALSE))
  },
  `floor, grid-major` = function(sc, o) {
    # One predict() per feature of data[rep(1:n, G), ] with the feature set
    # to the grid, the grid varying slowest; only predict() is timed.
    t <- c(0, 0)
    n <- nrow(sc$X)
    out <- list()
    for (v in names(sc$grids)) {
      g <- sc$grids[[v]]
      nd <- stack_rows(sc$X, rep.int(seq_len(n), length(g)))
      nd[[v]] <- rep(g, each = n)
      t0 <- clock()
      y <- sc$pf(sc$model, nd)
      t <- t + clock() - t0
      rm(nd)
      out[[v]] <- data.frame(var = v, x = g, yhat = colMeans(matrix(y, n)))
    }
    list(profile = bind_rows(out), timed = t)
  },
  `floor, observation-major` = function(sc, o) {
    # The same rows with each background row repeated over the grid.
    t <- c(0, 0)
    n <- nrow(sc$X)
    out <- list()
    for (v in names(sc$grids)) {
      g <- sc$grids[[v]]
      nd <- stack_rows(sc$X, rep(seq_len(n), each = length(g)))
      nd[[v]] <- rep.int(g, n)
      t0 <- clock()
      y <- sc$pf(sc$model, nd)
      t <- t + clock() - t0
      rm(nd)
      out[[v]] <- data.frame(var = v, x = g, yhat = rowMeans(matrix(y, length(g))))
    }
    list(profile = bind_rows(out), timed = t)
  },
  `floor, n rows per call` = function(sc, o) {
    # One predict() per grid point on the n background rows (as pdp).
    t <- c(0, 0)
    out <- list()
    for (v in names(sc$grids)) {
      g <- sc$grids[[v]]
      nd <- stack_rows(sc$X, seq_len(nrow(sc$X)))
      yhat <- numeric(length(g))
      for (i in seq_along(g)) {
        nd[[v]] <- rep(g[i], nrow(sc$X))
        t0 <- clock()
        y <- sc$pf(sc$model, nd)
        t <- t + clock() - t0
        yhat[i] <- mean(y)
      }
      out[[v]] <- data.frame(var = v, x = g, yhat = yhat)
    }
    list(profile = bind_rows(out), timed = t)
  },
  hstats = function(sc, o) {
    list(profile = bind_rows(lapply(names(sc$grids), function(v) {
      r <- hstats::partial_dep(sc$model, v = v, X = sc$X, pred_fun = sc$pf,
                               grid = sc$grids[[v]], n_max = nrow(sc$X))$data
      data.frame(var = v, x = r[[v]], yhat = r$y)
    })))
  },
  pdp = function(sc, o) {
    list(profile = bind_rows(lapply(names(sc$grids), function(v) {
      g <- stats::setNames(data.frame(sc$grids[[v]]), v)
      r <- pdp::partial(sc$model, pred.var = v, pred.grid = g, train = sc$X,
                        type = "regression", check.class = FALSE)
      data.frame(var = v, x = r[[v]], yhat = r$yhat)
    })))
  },
  DALEX = function(sc, o) {
    # One model_profile() per feature (all at once builds the ICE table of
    # every feature: gigabytes for the lm).
    e <- DALEX::explain(sc$model, data = sc$X, predict_function = sc$pf, verbose = FALSE,
                        precalculate = FALSE)
    list(profile = bind_rows(lapply(names(sc$grids), function(v) {
      a <- DALEX::model_profile(e, variables = v, N = NULL, variable_splits = sc$grids[v])$agr_profiles
      data.frame(var = as.character(a$`_vname_`), x = a$`_x_`, yhat = a$`_yhat_`)
    })))
  },
  iml = function(sc, o) {
    p <- iml::Predictor$new(sc$model, data = sc$X, predict.function = sc$pf)
    list(profile = bind_rows(lapply(names(sc$grids), function(v) {
      r <- iml::FeatureEffect$new(p, v, method = "pdp", grid.points = sc$grids[[v]])$results
      data.frame(var = v, x = r[[v]], yhat = r$.value)
    })))
  },
  effectplots = function(sc, o) {
    # effectplots evaluates PD at the mean of x in each bin of `breaks`; with
    # G + 1 quantile breaks it gives G points (its own grid).
    vars <- names(sc$grids)
    br <- lapply(vars, function(v) pd_grid(sc$X[[v]], o$G + 1L))
    names(br) <- vars
    r <- effectplots::partial_dependence(sc$model, v = vars, data = sc$X, pred_fun = sc$pf,
                                         breaks = br, pd_n = nrow(sc$X), outlier_iqr = Inf)
    list(profile = bind_rows(lapply(vars, function(v) {
      data.frame(var = v, x = r[[v]]$bin_mean, yhat = r[[v]]$pd)
    })))
  }
)

methods_al <- list(
  modelprofiles = function(sc, o) {
    mp_out(mp_call(modelprofiles::model_profile, sc, N = NULL, type = "accumulated",
                   intervals = o$K))
  },
  `floor, 2n rows` = function(sc, o) {
    # One predict() per feature on 2 x n rows (each row at the lower and the
    # upper edge of its interval); only predict() is timed.
    t <- c(0, 0)
    n <- nrow(sc$X)
    out <- list()
    for (v in names(sc$edges)) {
      e <- sc$edges[[v]]
      k <- findInterval(sc$X[[v]], e, left.open = TRUE, all.inside = TRUE)
      nd <- stack_rows(sc$X, c(seq_len(n), seq_len(n)))
      nd[[v]] <- c(e[k], e[k + 1L])
      t0 <- clock()
      y <- sc$pf(sc$model, nd)
      t <- t + clock() - t0
      d <- y[n + seq_len(n)] - y[seq_len(n)]
      inc <- as.numeric(tapply(d, factor(k, seq_len(length(e) - 1L)), mean))
      inc[is.na(inc)] <- 0
      out[[v]] <- data.frame(var = v, x = e, yhat = c(0, cumsum(inc)))
    }
    list(profile = bind_rows(out), timed = t)
  },
  effectplots = function(sc, o) {
    # ale_bin_size = n: every row is used (the default samples 200 per bin).
    vars <- names(sc$edges)
    r <- effectplots::ale(sc$model, v = vars, data = sc$X, pred_fun = sc$pf,
                          breaks = sc$edges[vars], ale_n = nrow(sc$X),
                          ale_bin_size = nrow(sc$X), outlier_iqr = Inf)
    list(profile = bind_rows(lapply(vars, function(v) {
      data.frame(var = v, x = sc$edges[[v]], yhat = c(0, r[[v]]$ale))
    })))
  },
  ALEPlot = function(sc, o) {
    grDevices::pdf(NULL)
    on.exit(grDevices::dev.off())
    pf <- sc$pf
    list(profile = bind_rows(lapply(names(sc$edges), function(v) {
      r <- ALEPlot::ALEPlot(sc$X, sc$model, pred.fun = function(X.model, newdata) pf(X.model, newdata),
                            J = match(v, names(sc$X)), K = length(sc$edges[[v]]) - 1L)
      data.frame(var = v, x = r$x.values, yhat = r$f.values)
    })))
  },
  iml = function(sc, o) {
    p <- iml::Predictor$new(sc$model, data = sc$X, predict.function = sc$pf)
    list(profile = bind_rows(lapply(names(sc$edges), function(v) {
      r <- iml::FeatureEffect$new(p, v, method = "ale", grid.points = sc$edges[[v]])$results
      data.frame(var = v, x = r[[v]], yhat = r$.value)
    })))
  }
)

methods_engine <- list(
  `engine = "native"` = function(sc, o) {
    mp_out(mp_call(modelprofiles::model_profile, sc, N = NULL, engine = "native"), ice = TRUE)
  },
  `engine = "predict"` = function(sc, o) {
    mp_out(mp_call(modelprofiles::model_profile, sc, N = NULL, engine = "predict"), ice = TRUE)
  }
)

# The numbers of a result: its lists, data frames and atomic vectors,
# without calls, functions, environments and the thread count.
numbers_of <- function(x) {
  if (is.function(x) || is.environment(x) || is.language(x) || inherits(x, "formula")) return(NULL)
  if (is.list(x)) {
    nm <- names(x)
    idx <- if (is.null(nm)) seq_along(x) else which(!nm %in% c("call", "threads"))
    return(lapply(unclass(x)[idx], numbers_of))
  }
  attr(x, "call") <- NULL
  x
}

# E: the three entry points under the plan named `plan`; the workers start
# and load modelprofiles and the model's package in a small call first,
# which is not timed (starting R is not the executor's cost).
parallel_method <- function(plan) {
  function(sc, o) {
    if (plan == "multisession") {
      future::plan(future::multisession, workers = 2)
    } else {
      future::plan(future::sequential)
    }
    on.exit(future::plan(future::sequential), add = TRUE)
    pfs <- list(default = NULL, `1 thread` = pred_fun_for(sc$model, threads = 1L))
    if (plan == "multisession") {
      # one future on each worker (both wait, so that neither takes both)
      fs <- lapply(1:2, function(i) future::future({
        loadNamespace("modelprofiles")
        loadNamespace("ranger")
        Sys.sleep(1)
        Sys.getpid()
      }, seed = NULL))
      invisible(lapply(fs, future::value))
    }
    for (nm in o$E_predict) {
      invisible(modelprofiles::h_statistic(sc$model, sc$X[1:100, ], predict_function = pfs[[nm]],
                                           N = 50, pairs = 2, seed = 1, engine = "predict"))
    }
    calls <- list(
      h_statistic = function(pf) modelprofiles::h_statistic(
        sc$model, sc$X, predict_function = pf, N = o$E_h_N, pairs = 4, seed = 1, engine = "predict"),
      model_profile_2d = function(pf) modelprofiles::model_profile_2d(
        sc$model, sc$X, predict_function = pf, N = o$E_2d_N, seed = 1, grid_points = o$E_2d_grid,
        variables = list(c("x1", "x2"), c("x3", "x4")), engine = "predict"),
      compare_profiles = function(pf) modelprofiles::compare_profiles(
        sc$model, sc$X, predict_function = pf, N = o$E_cmp_N, seed = 1, grid_points = o$E_cmp_grid,
        variables = c("x1", "x2", "x3", "x4"), engine = "predict")
    )
    entries <- list()
    total <- c(0, 0)
    for (nm in o$E_predict) {
      for (ent in names(calls)) {
        invisible(gc())
        t0 <- clock()
        r <- calls[[ent]](pfs[[nm]])
        t <- clock() - t0
        total <- total + t
        entries[[length(entries) + 1L]] <- list(
          entry = ent, variant = nm, time = t[[1]], cpu = t[[2]],
          n_predictions = r$n_predictions %||% sum(vapply(r$profiles, function(p) p$n_predictions %||% NA_real_, numeric(1))),
          numbers = numbers_of(r))
      }
    }
    list(entries = entries, timed = total)
  }
}

methods_parallel <- list(sequential = parallel_method("sequential"),
                         multisession = parallel_method("multisession"))

# F: the data are made in the process, before the memory reset.
memory_method <- function(engine) {
  list(
    prepare = function(sc, o) {
      sc$X <- make_wide(o$F_n, seed = 2)$X
      sc$data_mib <- as.numeric(utils::object.size(sc$X)) / 2^20
      sc
    },
    run = function(sc, o) {
      args <- list(sc$model, sc$X, variables = o$F_vars, N = NULL, grid_points = o$F_grid)
      if (!is.null(engine)) args$engine <- engine
      r <- do.call(modelprofiles::model_profile, args)
      out <- mp_out(r)
      out$info$data_mib <- sc$data_mib
      out
    }
  )
}

methods_memory <- list(lm = memory_method(NULL), `ranger, native` = memory_method("native"))

method_table <- function(kind) {
  switch(kind, PD = methods_pd, AL = methods_al, engine = methods_engine,
         parallel = methods_parallel, memory = methods_memory)
}

# The package a method needs (NA: modelprofiles, or none beyond the model's).
peer_package <- function(method) {
  p <- c(hstats = "hstats", pdp = "pdp", DALEX = "DALEX", iml = "iml",
         effectplots = "effectplots", ALEPlot = "ALEPlot")
  if (method %in% names(p)) p[[method]] else NA_character_
}

# ---- Worker (in a fresh R process) ----------------------------------------------

worker <- function(spec) {
  if (spec$kind %in% c("PD", "AL") && !is.na(pkg <- peer_package(spec$method))) {
    suppressPackageStartupMessages(loadNamespace(pkg))
  }
  if (startsWith(spec$method, "modelprofiles") || !spec$kind %in% c("PD", "AL")) {
    suppressPackageStartupMessages(library(modelprofiles, lib.loc = spec$lib))
  }
  if (spec$kind == "parallel") suppressPackageStartupMessages(loadNamespace("future"))
  sc <- readRDS(spec$rds)
  if (inherits(sc$model, "ranger")) suppressPackageStartupMessages(loadNamespace("ranger"))
  sc$pf <- pred_fun_for(sc$model)
  o <- spec$settings
  fn <- method_table(spec$kind)[[spec$method]]
  if (is.list(fn)) { prep <- fn$prepare; fn <- fn$run } else prep <- NULL
  invisible(gc(full = TRUE))
  rss_base <- status_mib("VmRSS")
  if (!is.null(prep)) sc <- prep(sc, o)
  invisible(gc(full = TRUE))
  reset_ok <- reset_peak()
  rss0 <- status_mib("VmRSS")
  hwm0 <- status_mib("VmHWM")
  load0 <- load_average()
  msgs <- character()
  t0 <- clock()
  r <- withCallingHandlers(fn(sc, o),
    message = function(m) { msgs <<- c(msgs, conditionMessage(m)); invokeRestart("muffleMessage") },
    warning = function(w) { msgs <<- c(msgs, paste("warning:", conditionMessage(w))); invokeRestart("muffleWarning") })
  t <- clock() - t0
  hwm <- status_mib("VmHWM")
  if (!is.null(r$timed)) t <- r$timed
  r$timed <- NULL
  c(r, list(time = t[[1]], cpu = t[[2]], load = load0, reset_ok = reset_ok,
            rss_base = rss_base, rss0 = rss0, hwm = hwm,
            peak_mib = hwm - if (reset_ok) rss0 else hwm0,
            messages = unique(trimws(msgs))))
}

worker_safe <- function(spec) {
  tryCatch(worker(spec), error = function(e) list(error = conditionMessage(e)))
}

# ---- Agreement -------------------------------------------------------------------------

# Max abs difference of `res` to `ref` over matching (var, x) points (NA
# when the points differ). For AL both are centred to mean 0 over the grid
# of each variable first.
max_diff <- function(res, ref, center = FALSE) {
  if (is.null(res) || is.null(ref)) return(NA_real_)
  d <- numeric()
  for (v in unique(res$var)) {
    a <- res[res$var == v, ]
    b <- ref[ref$var == v, ]
    tol <- 1e-9 * max(1, abs(b$x))
    i <- vapply(a$x, function(x) {
      j <- which(abs(b$x - x) <= tol)
      if (length(j)) j[1] else NA_integer_
    }, integer(1))
    if (anyNA(i)) return(NA_real_)
    ya <- a$yhat
    yb <- b$yhat[i]
    if (center) { ya <- ya - mean(ya); yb <- yb - mean(yb) }
    d <- c(d, max(abs(ya - yb)))
  }
  max(d)
}

# Largest absolute difference of two lists of numbers of the same shape
# (NA when the shapes differ).
max_diff_numbers <- function(a, b) {
  ua <- suppressWarnings(as.numeric(unlist(a)))
  ub <- suppressWarnings(as.numeric(unlist(b)))
  if (length(ua) != length(ub)) return(NA_real_)
  ok <- !is.na(ua) & !is.na(ub)
  if (!any(ok)) return(0)
  max(abs(ua[ok] - ub[ok]))
}
