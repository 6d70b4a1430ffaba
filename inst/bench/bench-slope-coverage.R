# Coverage of the slope intervals of hidden_interactions(): for models whose
# population slopes are known, draw R samples of N background rows from a
# large population, compute the slopes (overall and per subgroup) with their
# 95 % intervals, and count how often the intervals cover the population
# slope. Also the error rate of the intervals rule on slopes that are 0 in
# the population (Holm's adjustment over every subgroup slope read).
#
# Estimand (what the intervals are for: the sampling of the background
# rows, the model fixed): the slope of a subgroup's PD profile between
# the fixed grid points z_1 and z_G (variable_splits, population quantiles)
# in the population, the (weighted) population mean over the subgroup's
# rows of f(x^{j=z_G}) - f(x^{j=z_1}). Samples are drawn with replacement
# from the population, so that the population slopes are exactly the
# estimands; the subgroups are fixed definitions (a factor, a fixed cut).
#
# Models:
# * null_x1 = x1 x2 + x3 (c(g) + x4): in a population made antithetic in x2
#   (each row with x2 and with -x2), x1's slope is exactly 0 overall and in
#   every subgroup, while each row's own slope (x2 times the grid's span)
#   is not: the random-grouping case of issue 32. x3's slope differs by
#   subgroup (c(g) = 1, 1, -2 for g = a, b, c) and from row to row (x4).
# * weighted: the same model and population with case weights 1 + x4^2
#   (the estimand the weighted population mean).
# * forest: a ranger forest (100 trees) fitted once on 2,000 rows of
#   y = 3 x1 s + x2 + e, s = +-1 by group, e ~ N(0, 0.5^2); the estimand
#   the population mean of the forest's own per-row slopes.
#
# Reported per model x N: coverage of the intervals (mean over samples of
# the share of slopes covered; Monte-Carlo SE), separately for the overall
# slopes and the subgroup slopes, the worst slope (binomial SE), se_ratio
# (median over slopes of mean(SE) / sd(slope - estimand); ~1 when the
# standard error is right), the mean interval width; and, over the slopes
# that are 0 in the population, the family-wise rate of calling any of them
# distinguishable (Holm) and the rate of flagging x1 as hidden.
#
# The weighted case's corrections compared: a plain-R replica of the
# weighted slopes and of their package intervals (checked equal to
# hidden_interactions() on a sample), on SLOPE_COV_RD samples per N, with
# the alternatives: a t quantile with n_eff - 1 degrees of freedom (Kish's
# n_eff of the slope's rows), the jackknife standard error, and HC3's
# leverage correction (h_i = w_i / W); and the population kurtosis of the
# rows' influence values, which bounds how fast any of them approaches
# the nominal level.
#
#   R_LIBS=... Rscript inst/bench/bench-slope-coverage.R
#   (environment: SLOPE_COV_R samples per model and N, default 200;
#    SLOPE_COV_MODELS a regular expression of the models to run, the
#    others' rows kept from the table in SLOPE_COV_OUT; SLOPE_COV_RD the
#    replica's samples per N, default 20000 (0: none);
#    SLOPE_COV_OUT results directory)
library(modelprofiles)
stopifnot(requireNamespace("ranger", quietly = TRUE))
R <- as.integer(Sys.getenv("SLOPE_COV_R", 200))
R_diag <- as.integer(Sys.getenv("SLOPE_COV_RD", 20000))
run_models <- Sys.getenv("SLOPE_COV_MODELS", "")
out_dir <- Sys.getenv("SLOPE_COV_OUT", file.path("inst", "bench", "results"))
Ns <- c(200, 1000)
level <- 0.95
threads <- 1L
options(modelprofiles.threads = threads, width = 200)
t_start <- proc.time()[[3]]

# ---- Populations, models and their population slopes ------------------------------------

set.seed(32)
half <- 25000
base <- data.frame(x1 = runif(half, -1, 1), x2 = rnorm(half), x3 = runif(half), x4 = rnorm(half),
                   g = factor(sample(c("a", "b", "c"), half, TRUE, prob = c(0.5, 0.3, 0.2))))
flip <- base
flip$x2 <- -flip$x2
P1 <- rbind(base, flip)
P1$h <- P1$x3 > 0.5
f1 <- function(X) X$x1 * X$x2 + X$x3 * (c(a = 1, b = 1, c = -2)[as.character(X$g)] + X$x4)

n_train <- 2000
Tr <- data.frame(x1 = runif(n_train), x2 = runif(n_train), x3 = runif(n_train),
                 g = factor(sample(c("up", "down"), n_train, TRUE)))
Tr$y <- 3 * Tr$x1 * ifelse(Tr$g == "up", 1, -1) + Tr$x2 + rnorm(n_train, sd = 0.5)
rf <- ranger::ranger(y ~ x1 + x2 + x3 + g, Tr, num.trees = 100, num.threads = threads, seed = 1)
n_pop <- 1e4
P3 <- data.frame(x1 = runif(n_pop), x2 = runif(n_pop), x3 = runif(n_pop),
                 g = factor(sample(c("up", "down"), n_pop, TRUE)))
P3$h <- P3$x2 > 0.5
f3 <- function(X) predict(rf, X, num.threads = threads)$predictions

grid_of <- function(P, variables) {
  lapply(stats::setNames(variables, variables), function(v) unname(quantile(P[[v]], c(0.05, 0.25, 0.5, 0.75, 0.95))))
}
models <- list(
  null_x1 = list(P = P1, f = f1, variables = c("x1", "x3"), weights = NULL),
  weighted = list(P = P1, f = f1, variables = c("x1", "x3"), weights = function(X) 1 + X$x4^2),
  forest = list(P = P3, f = f3, variables = c("x1", "x2", "x3"), weights = NULL)
)

# The population slope of every subgroup (and "all") and variable, in the
# order of hidden_interactions()'s $slopes.
population_slopes <- function(m) {
  P <- m$P
  w <- if (is.null(m$weights)) rep(1, nrow(P)) else m$weights(P)
  subsets <- c(list(all = rep(TRUE, nrow(P))),
               stats::setNames(lapply(levels(P$g), function(l) P$g == l), paste("g", levels(P$g))),
               list("h FALSE" = !P$h, "h TRUE" = P$h))
  do.call(rbind, lapply(m$variables, function(v) {
    z <- range(m$grid[[v]])
    lo <- P
    lo[[v]] <- z[1]
    hi <- P
    hi[[v]] <- z[2]
    d <- m$f(hi) - m$f(lo)
    data.frame(subgroup = names(subsets), variable = v,
               truth = vapply(subsets, function(r) sum(w[r] * d[r]) / sum(w[r]), 1))
  }))
}
for (mn in names(models)) {
  models[[mn]]$grid <- grid_of(models[[mn]]$P, models[[mn]]$variables)
  models[[mn]]$truth <- population_slopes(models[[mn]])
  # (The antithetic population's x1 slopes are 0 up to rounding: exactly 0.)
  t <- models[[mn]]$truth
  t$truth[abs(t$truth) < 1e-12] <- 0
  models[[mn]]$truth <- t
}

# ---- Samples -----------------------------------------------------------------------------

one_sample <- function(m, N) {
  S <- m$P[sample.int(nrow(m$P), N, replace = TRUE), ]
  w <- if (!is.null(m$weights)) m$weights(S)
  h <- suppressMessages(hidden_interactions(
    NULL, S[setdiff(names(S), "h")], predict_function = function(model, nd) m$f(nd),
    variables = m$variables, groups = list(g = S$g, h = S$h), N = NULL,
    variable_splits = m$grid, weights = w, min_group_size = 5, level = level, threads = threads
  ))
  sl <- h$slopes
  key <- paste(sl$subgroup, sl$variable)
  list(key = key, slope = sl$slope, se = sl$se, lower = sl$lower, upper = sl$upper,
       distinct = sl$distinct, hidden_x1 = isTRUE(h$summary$hidden[h$summary$variable == "x1"]))
}

rows <- list()
null_rows <- list()
for (mn in grep(run_models, names(models), value = TRUE)) {
  m <- models[[mn]]
  truth <- stats::setNames(m$truth$truth, paste(m$truth$subgroup, m$truth$variable))
  for (N in Ns) {
    t0 <- proc.time()[[3]]
    set.seed(1000 + N)
    res <- lapply(seq_len(R), function(r) one_sample(m, N))
    keys <- names(truth)
    take <- function(field) {
      vapply(res, function(s) {
        v <- s[[field]][match(keys, s$key)]
        as.double(v)
      }, numeric(length(keys)))
    }
    est <- take("slope")
    se <- take("se")
    lo <- take("lower")
    up <- take("upper")
    dis <- take("distinct")
    covered <- lo <= truth & truth <= up
    overall <- startsWith(keys, "all ")
    for (part in c("overall", "subgroups")) {
      sel <- if (part == "overall") overall else !overall
      cov_s <- colMeans(covered[sel, , drop = FALSE], na.rm = TRUE)
      per <- rowMeans(covered[sel, , drop = FALSE], na.rm = TRUE)
      worst <- which.min(per)
      err <- est[sel, , drop = FALSE] - truth[sel]
      ratio <- apply(se[sel, , drop = FALSE], 1, mean, na.rm = TRUE) / apply(err, 1, sd, na.rm = TRUE)
      rows[[length(rows) + 1L]] <- data.frame(
        model = mn, N = N, slopes = part, R = R, cells = sum(sel),
        coverage = mean(cov_s), mc_se = sd(cov_s) / sqrt(R),
        worst = per[worst], worst_se = sqrt(per[worst] * (1 - per[worst]) / R), worst_at = keys[sel][worst],
        se_ratio = median(ratio[is.finite(ratio)]),
        width = mean(up[sel, ] - lo[sel, ], na.rm = TRUE)
      )
    }
    zero <- truth == 0 & !overall
    if (any(zero)) {
      any_false <- colSums(dis[zero, , drop = FALSE] == 1, na.rm = TRUE) > 0
      flagged <- vapply(res, `[[`, logical(1), "hidden_x1")
      null_rows[[length(null_rows) + 1L]] <- data.frame(
        model = mn, N = N, R = R, zero_slopes = sum(zero),
        tests = sum(!overall), fwer = mean(any_false), fwer_se = sqrt(mean(any_false) * (1 - mean(any_false)) / R),
        flagged_x1 = mean(flagged)
      )
    }
    cat(sprintf("%s, N = %d: %d samples in %.1f s\n", mn, N, R, proc.time()[[3]] - t0))
  }
}
tab <- do.call(rbind, rows)
nul <- do.call(rbind, null_rows)
partial_run <- nzchar(run_models)
if (partial_run && file.exists(file.path(out_dir, "bench-slope-coverage.rds"))) {
  prev <- readRDS(file.path(out_dir, "bench-slope-coverage.rds"))
  keep <- !prev$table$model %in% tab$model
  tab <- rbind(prev$table[keep, ], tab)
  tab <- tab[order(match(tab$model, names(models)), tab$N), ]
  if (!is.null(nul)) {
    nul <- rbind(prev$null[!prev$null$model %in% nul$model, ], nul)
    nul <- nul[order(match(nul$model, names(models)), nul$N), ]
  } else nul <- prev$null
}
rownames(tab) <- rownames(nul) <- NULL

# ---- The weighted case's corrections compared (plain R) ---------------------------------

# Each slope of the weighted model is a weighted mean, over its subgroup's
# rows, of the rows' own slopes d_i = f(x_i^{j=z_G}) - f(x_i^{j=z_1}), with
# weights w_i = 1 + x4_i^2.
m <- models$weighted
P <- m$P
w_pop <- m$weights(P)
subsets <- c(list(all = rep(TRUE, nrow(P))),
             stats::setNames(lapply(levels(P$g), function(l) P$g == l), paste("g", levels(P$g))),
             list("h FALSE" = !P$h, "h TRUE" = P$h))
set_col <- function(X, v, z) {
  X[[v]] <- rep(z, length.out = nrow(X))
  X
}
d_pop <- lapply(stats::setNames(m$variables, m$variables), function(v) {
  z <- range(m$grid[[v]])
  m$f(set_col(P, v, z[2])) - m$f(set_col(P, v, z[1]))
})
slope_intervals <- function(d, k, z) {
  W <- sum(k)
  s <- sum(k * d) / W
  n_eff <- W^2 / sum(k^2)
  se <- sqrt(n_eff / (n_eff - 1) * sum(k^2 * (d - s)^2)) / W
  sj <- (W * s - k * d) / (W - k)
  m <- length(d)
  se_jk <- sqrt((m - 1) / m * sum((sj - mean(sj))^2))
  se_hc3 <- sqrt(sum(k^2 * (d - s)^2 / (1 - k / W)^2)) / W
  c(slope = s, se = se, se_jk = se_jk, se_hc3 = se_hc3, t = stats::qt(0.975, n_eff - 1), n_eff = n_eff)
}
diag_rows <- list()
if (R_diag > 0) {
  # The replica is the package's interval: one sample, against hidden_interactions().
  set.seed(7)
  i <- sample.int(nrow(P), 200, replace = TRUE)
  S <- P[i, ]
  h <- suppressMessages(hidden_interactions(
    NULL, S[setdiff(names(S), "h")], predict_function = function(model, nd) m$f(nd),
    variables = m$variables, groups = list(g = S$g, h = S$h), N = NULL,
    variable_splits = m$grid, weights = m$weights(S), min_group_size = 5, level = level, threads = threads
  ))
  for (v in m$variables) for (sg in names(subsets)) {
    r <- subsets[[sg]][i]
    x <- slope_intervals(d_pop[[v]][i][r], w_pop[i][r], 1.96)
    hs <- h$slopes[h$slopes$variable == v & h$slopes$subgroup == sg, ]
    stopifnot(isTRUE(all.equal(c(hs$slope, hs$se), unname(x[c("slope", "se")]), tolerance = 1e-10)))
  }
  z <- stats::qnorm((1 + level) / 2)
  for (N in Ns) {
    set.seed(5000 + N)
    res <- array(NA_real_, c(length(m$variables), length(subsets), 6, R_diag))
    for (r in seq_len(R_diag)) {
      i <- sample.int(nrow(P), N, replace = TRUE)
      for (a in seq_along(m$variables)) for (b in seq_along(subsets)) {
        sel <- subsets[[b]][i]
        res[a, b, , r] <- slope_intervals(d_pop[[a]][i][sel], w_pop[i][sel], z)
      }
    }
    for (a in seq_along(m$variables)) for (b in seq_along(subsets)) {
      sel <- subsets[[b]]
      tr <- sum(w_pop[sel] * d_pop[[a]][sel]) / sum(w_pop[sel])
      x <- res[a, b, , ]
      err <- x[1, ] - tr
      # The kurtosis of the influence values w (d - slope) of the population.
      u <- w_pop[sel] * (d_pop[[a]][sel] - tr)
      diag_rows[[length(diag_rows) + 1L]] <- data.frame(
        N = N, slope = paste(names(subsets)[b], m$variables[a]), n_eff = mean(x[6, ]),
        kurtosis = mean(u^4) / mean(u^2)^2,
        z_kish = mean(abs(err) <= z * x[2, ]), t_neff = mean(abs(err) <= x[5, ] * x[2, ]),
        jackknife = mean(abs(err) <= z * x[3, ]), hc3 = mean(abs(err) <= z * x[4, ]),
        se_ratio = mean(x[2, ]) / sd(err)
      )
    }
  }
}
diag <- do.call(rbind, diag_rows)
elapsed <- proc.time()[[3]] - t_start

fmt <- data.frame(
  model = tab$model, N = tab$N, slopes = tab$slopes, R = tab$R, cells = tab$cells,
  coverage = sprintf("%.1f%% (%.1f)", 100 * tab$coverage, 100 * tab$mc_se),
  worst = sprintf("%.1f%% (%.1f) at %s", 100 * tab$worst, 100 * tab$worst_se, tab$worst_at),
  se_ratio = sprintf("%.2f", tab$se_ratio), width = sprintf("%.3f", tab$width)
)
fmt_null <- data.frame(
  model = nul$model, N = nul$N, R = nul$R, zero_slopes = nul$zero_slopes, tests = nul$tests,
  any_called_nonzero = sprintf("%.1f%% (%.1f)", 100 * nul$fwer, 100 * nul$fwer_se),
  x1_flagged = sprintf("%.1f%%", 100 * nul$flagged_x1)
)
header <- c(
  "Coverage of 95 % slope intervals of hidden_interactions() (inst/bench/bench-slope-coverage.R)",
  sprintf("%s; R %s; modelprofiles %s; %d thread(s); %.0f s in all%s.",
          format(Sys.Date()), getRversion(), utils::packageVersion("modelprofiles"), threads, elapsed,
          if (partial_run) paste0(" (this run: ", run_models, " only, R = ", R, "; the other rows from the run before)") else ""),
  "Models: null_x1 = x1 x2 + x3 (c(g) + x4), c = 1, 1, -2 for g = a, b, c (probabilities 0.5, 0.3, 0.2),",
  "  x1 ~ U(-1, 1), x2, x4 ~ N(0, 1), x3 ~ U(0, 1); population 50,000 rows, antithetic in x2 (x1's slopes exactly 0);",
  "  weighted = the same with case weights 1 + x4^2;",
  "  forest = ranger, 100 trees, fitted once on 2,000 rows of y = 3 x1 s + x2 + e, s = +-1 by group g,",
  "  e ~ N(0, 0.5^2); population 10,000 rows.",
  "Groupings: g (a factor) and h (x3 > 0.5, forest: x2 > 0.5); grid points: population quantiles 5 ... 95 %,",
  "  the slope from the 5 % to the 95 % quantile. Samples of N rows drawn with replacement from the population.",
  "coverage: mean over samples of the share of slopes covered (Monte-Carlo SE); worst: the worst slope",
  "  (binomial SE); se_ratio: median over slopes of mean(SE) / sd(slope - population slope); width: mean interval width.",
  ""
)
null_header <- c(
  "",
  "Slopes that are 0 in the population (x1 in every subgroup): how often any is called distinguishable",
  "from 0 by Holm's adjustment over all the subgroup slopes read (tests), and how often x1 is flagged hidden",
  "(rule = \"intervals\"; nominal family-wise error at most 5 %).",
  ""
)
# What the weighted case's numbers mean (written from the run with SLOPE_COV_R = 1000 for
# the weighted model and SLOPE_COV_RD = 20000).
notes <- if (!is.null(diag)) c(
  "",
  "What bounds the weighted case (weights 1 + x4^2, x4 ~ N(0, 1); Kish's n_eff / n = E[w]^2 / E[w^2] = 4 / 6):",
  "* The 89.5% (overall, N = 200) of the first run was mostly Monte-Carlo noise: the replica on the same 200 draws",
  "  gives 89% and 90% for the two overall slopes, and the same model with 1,000 samples (the first 200 the same) gives",
  "  93.3% (0.6), with the replica's 20,000 samples 94.6% (x1) and 94.1% (x3); se_ratio 0.88 was the noise of",
  "  sd(slope - truth) over 200 heavy-tailed draws (0.99 and 0.98 over 20,000).",
  "* What remains at N = 200 (1.3 points on average over the twelve slopes, 3.3 at the smallest subgroup, g c x3,",
  "  n_eff 28) is not a small-sample bias of the standard error but the shape of the influence values w (d - slope):",
  "  for x3, d = c(g) + x4 and w = 1 + x4^2, so w d has an x4^3 term: skewed, with kurtosis 26-31 against 13-17 for x1,",
  "  and a symmetric interval on a skewed statistic under-covers at any se. Corrections of the se's scale recover",
  "  little: a t quantile with n_eff - 1 df 0.5 points on average (1.3 at g c x3), the jackknife 0.3, HC3 0.5 (the",
  "  table above); none reaches 95% at N = 200 for the skewed slopes (93.0% at best at g c x3), and all agree with the",
  "  package's interval at N = 1000 (94.7% against 94.8%), where the statistic is close to normal.",
  "* So the package's interval (z, with Kish's factor) is kept: the shortfall is bounded by the skewness and kurtosis",
  "  of the weighted influence values at small n_eff (about n_eff < 50 here), not by n_eff itself. A t quantile with",
  "  n_eff - 1 df is the principled cheap step (never narrower; here +0.5 point); reaching nominal for skewed",
  "  influence values needs a skewness-aware interval (bootstrap-t, or Johnson's / Hall's skewness-corrected t)."
)
diag_text <- if (!is.null(diag)) {
  agg <- do.call(rbind, lapply(split(diag, diag$N), function(d) {
    data.frame(N = d$N[1L], slopes = nrow(d), n_eff_all = d$n_eff[d$slope == "all x1"],
               z_kish = mean(d$z_kish), t_neff = mean(d$t_neff), jackknife = mean(d$jackknife),
               hc3 = mean(d$hc3), worst_z_kish = min(d$z_kish), worst_at = d$slope[which.min(d$z_kish)])
  }))
  se_mc <- sqrt(0.95 * 0.05 / R_diag)
  pct <- function(x) sprintf("%.1f%%", 100 * x)
  c("",
    sprintf("The weighted case's intervals by a plain-R replica of the package's (checked equal to hidden_interactions() on a sample),"),
    sprintf("%d samples per N (Monte-Carlo SE of one slope's coverage %.2f points; the mean over slopes is more precise).", R_diag, 100 * se_mc),
    "z_kish: the package's interval (slope +/- qnorm(0.975) se, Kish's factor n_eff / (n_eff - 1) in se);",
    "t_neff: a t quantile with n_eff - 1 degrees of freedom; jackknife: the jackknife se; hc3: HC3's leverage factor.",
    "",
    capture.output(print(data.frame(N = agg$N, slopes = agg$slopes, n_eff_all = sprintf("%.0f", agg$n_eff_all),
                                    z_kish = pct(agg$z_kish), t_neff = pct(agg$t_neff), jackknife = pct(agg$jackknife),
                                    hc3 = pct(agg$hc3), worst_z_kish = paste(pct(agg$worst_z_kish), "at", agg$worst_at)),
                         right = FALSE, row.names = FALSE)),
    "",
    "Per slope (N, slope, mean n_eff, population kurtosis of the influence values w (d - slope), coverage of each interval, se_ratio):",
    capture.output(print(data.frame(N = diag$N, slope = diag$slope, n_eff = sprintf("%.0f", diag$n_eff),
                                    kurtosis = sprintf("%.1f", diag$kurtosis), z_kish = pct(diag$z_kish),
                                    t_neff = pct(diag$t_neff), jackknife = pct(diag$jackknife), hc3 = pct(diag$hc3),
                                    se_ratio = sprintf("%.3f", diag$se_ratio)), right = FALSE, row.names = FALSE)))
}
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
txt <- file.path(out_dir, "bench-slope-coverage.txt")
writeLines(c(header, capture.output(print(fmt, right = FALSE, row.names = FALSE)), null_header,
             capture.output(print(fmt_null, right = FALSE, row.names = FALSE)), diag_text,
             if (exists("notes")) notes), txt)
saveRDS(list(table = tab, null = nul, diagnostics = diag, date = Sys.Date(), level = level, R = R,
             R_diag = R_diag, seconds = elapsed),
        file.path(out_dir, "bench-slope-coverage.rds"))
cat(readLines(txt), sep = "\n")
