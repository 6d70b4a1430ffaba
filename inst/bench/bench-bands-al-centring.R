# How to linearise the centring and the shift of interval AL for its
# analytic bands. AL at edge z_k is g_k - c + mean(f): g the accumulated
# interval means m_t of the local effects, c = sum_t p_t gmid_t the
# centring (p_t = W_t / W the interval shares, gmid_t = (g_{t-1} + g_t) / 2)
# and mean(f) the mean prediction. Four standard errors, on the same samples,
# in plain R (equal weights):
#   unstratified (the package at 023b26b): each row's influence
#       A[, t(i)] (d_i - m_t) / n_t + (f_i - mean f) / n, factor n / (n - 1);
#       the shares p_t held fixed;
#   stratified (the package at 238e265): the prediction centred within its
#       interval, (f_i - mean_t f) / n, and a factor n_t / (n_t - 1) per
#       interval: the shares held fixed *and* the intervals treated as
#       strata of a design, although their edges are sample quantiles;
#   counts: unstratified plus each row's influence through the shares of the
#       centring, -(gmid_{t(i)} - c) / n (the shares vary with the rows, as
#       the bootstrap lets them);
#   both: counts, with the interval means' part under n_t / (n_t - 1).
# The estimand is the population AL at each sample's edges, as in
# bench-bands-coverage.R. Models: the additive and interaction models of
# bench-bands-coverage.R (AL of x1 and x2), and `flat`: f = x2 with
# cor(x1, x2) = 0.9, AL of x1 (flat at E f = 0: its sampling error is that
# of mean(x2), sd 1 / sqrt(n), which stratifying by intervals of x1 takes
# for (1 - 0.81) / n).
# First two one-sample reproductions with the installed package.
#   R_LIBS=... Rscript inst/bench/bench-bands-al-centring.R   (BANDS_AL_R, default 300)
library(modelprofiles)
`%||%` <- function(a, b) if (is.null(a)) b else a
R <- as.integer(Sys.getenv("BANDS_AL_R", 300))
out_file <- Sys.getenv("BANDS_AL_OUT", file.path("inst", "bench", "results", "bench-bands-al-centring.txt"))
lines <- character()
say <- function(...) {
  lines <<- c(lines, sprintf(...))
  cat(sprintf(...), "\n")
}

# ---- The reproduction ----------------------------------------------------------
f0 <- function(X) 3 * X$x1 + X$x2
pf0 <- function(m, newdata) f0(newdata)
n <- 500
draw <- function() data.frame(x1 = runif(n, -1, 1), x2 = rnorm(n))
set.seed(1)
X <- draw()
an <- model_profile("m", X, predict_function = pf0, variables = "x1", type = "accumulated",
                    intervals = 10, N = NULL, bands = "analytic")
bs <- model_profile("m", X, predict_function = pf0, variables = "x1", type = "accumulated",
                    intervals = 10, N = NULL, bands = profile_bands("bootstrap", B = 500), seed = 1)
mc <- replicate(200, {
  p <- model_profile("m", draw(), predict_function = pf0, variables = "x1", type = "accumulated",
                     intervals = 10, N = NULL, keep_ice = FALSE)
  mean(p$agr_profiles$`_yhat_` - 3 * p$agr_profiles$`_x_`) # the profile's level
})
say("Reproduction: f = 3 x1 + x2, n = %d, interval AL of x1 (K = 10)", n)
say("  analytic SE (every edge):         %.3f", median(an$agr_profiles$`_se_`))
say("  bootstrap SD of the replicates:   %.3f (B = 500)", median(apply(bs$replicates, 1, sd)))
say("  sd of the level over 200 samples: %.3f; 1 / sqrt(n) = %.3f", sd(mc), 1 / sqrt(n))
say("")
rho <- 0.9
draw2 <- function() {
  a <- rnorm(n)
  data.frame(x1 = a, x2 = rho * a + sqrt(1 - rho^2) * rnorm(n))
}
pf2 <- function(m, newdata) newdata$x2
set.seed(1)
X <- draw2()
an <- model_profile("m", X, predict_function = pf2, variables = "x1", type = "accumulated",
                    intervals = 10, N = NULL, bands = "analytic")
bs <- model_profile("m", X, predict_function = pf2, variables = "x1", type = "accumulated",
                    intervals = 10, N = NULL, bands = profile_bands("bootstrap", B = 500), seed = 1)
mc <- replicate(200, {
  p <- model_profile("m", draw2(), predict_function = pf2, variables = "x1", type = "accumulated",
                     intervals = 10, N = NULL, bands = "analytic", keep_ice = FALSE)
  a <- p$agr_profiles[6, ]
  c(est = a$`_yhat_`, cover = a$`_lower_` <= 0 && 0 <= a$`_upper_`)
})
say("Reproduction: f = x2, cor(x1, x2) = %.1f, n = %d, interval AL of x1 (K = 10), flat at E f = 0", rho, n)
say("  analytic SE (middle edge):           %.4f", an$agr_profiles$`_se_`[6])
say("  bootstrap SD of the replicates:      %.4f (B = 500)", apply(bs$replicates, 1, sd)[6])
say("  sd of the estimate over 200 samples: %.4f; 1 / sqrt(n) = %.4f", sd(mc["est", ]), 1 / sqrt(n))
say("  coverage of 0 by the analytic 95 %% band: %.1f %%", 100 * mean(mc["cover", ]))
say("")

# ---- Coverage of the three standard errors ---------------------------------------
set.seed(20)
n_pop <- 1e5
bvn <- function(n, rho) {
  a <- rnorm(n)
  cbind(a, rho * a + sqrt(1 - rho^2) * rnorm(n))
}
Z <- bvn(n_pop, 0.7)
models <- list(
  additive = list(f = function(X) sin(3 * X$x1) + X$x2^2 / 2 + X$x3,
                  pop = data.frame(x1 = runif(n_pop, -1, 1), x2 = rnorm(n_pop), x3 = rnorm(n_pop))),
  interaction = list(f = function(X) X$x1 * X$x2 + X$x3,
                     pop = data.frame(x1 = Z[, 1], x2 = Z[, 2], x3 = rnorm(n_pop))),
  flat = local({
    Z <- bvn(n_pop, 0.9)
    list(f = function(X) X$x2, pop = data.frame(x1 = Z[, 1], x2 = Z[, 2]), vars = "x1")
  })
)
# The edges' intervals of x (the minimum in the first).
interval_of <- function(x, e) {
  k <- findInterval(x, e, left.open = TRUE)
  k[k == 0L] <- 1L
  k
}
# The population AL at edges e (as in bench-bands-coverage.R).
pop_al <- function(f, X, v, e, fbar) {
  K <- length(e) - 1L
  Xi <- X[X[[v]] >= e[1L] & X[[v]] <= e[K + 1L], ]
  k <- interval_of(Xi[[v]], e)
  hi <- Xi
  lo <- Xi
  hi[[v]] <- e[k + 1L]
  lo[[v]] <- e[k]
  n_k <- tabulate(k, K)
  g <- c(0, cumsum(as.vector(rowsum(f(hi) - f(lo), k)) / n_k))
  g - sum(n_k * (g[-1L] + g[-(K + 1L)]) / 2) / sum(n_k) + fbar
}
# The four standard errors at the edges e of sample S (equal weights).
four_se <- function(f, S, v, e) {
  K <- length(e) - 1L
  n <- nrow(S)
  k <- interval_of(S[[v]], e)
  hi <- S
  lo <- S
  hi[[v]] <- e[k + 1L]
  lo[[v]] <- e[k]
  d <- f(hi) - f(lo)
  n_k <- tabulate(k, K)
  m <- as.vector(rowsum(d, k)) / n_k
  p <- n_k / n
  A <- outer(0:K, 1:K, function(g, t) as.numeric(t <= g)) -
    matrix(rev(cumsum(rev(p))) - p / 2, K + 1L, K, byrow = TRUE)
  fx <- f(S)
  Ui <- t(A[, k]) * ((d - m[k]) / n_k[k])
  Us <- (fx - mean(fx)) / n
  fm <- as.vector(rowsum(fx, k)) / n_k
  g <- c(0, cumsum(m))
  gmid <- (g[-1L] + g[-(K + 1L)]) / 2
  Uc <- -(gmid[k] - sum(p * gmid)) / n
  fac <- ifelse(n_k > 1, n_k / (n_k - 1), 1)[k]
  list(unstratified = sqrt(n / (n - 1) * colSums((Ui + Us)^2)),
       stratified = sqrt(colSums(fac * (Ui + (fx - fm[k]) / n)^2)),
       counts = sqrt(n / (n - 1) * colSums((Ui + Us + Uc)^2)),
       both = sqrt(colSums((Ui * sqrt(fac) + (Us + Uc) * sqrt(n / (n - 1)))^2)))
}
kinds <- c("unstratified", "stratified", "counts", "both")
installed <- NULL # which formula the installed package uses
res <- list()
for (mn in names(models)) for (N in c(200, 500, 1000)) for (K in c(10, 40)) {
  m <- models[[mn]]
  fbar <- mean(m$f(m$pop))
  vars <- m$vars %||% c("x1", "x2")
  set.seed(N + K)
  d <- do.call(rbind, lapply(seq_len(R), function(r) {
    S <- m$pop[sample.int(n_pop, N, TRUE), , drop = FALSE]
    p <- model_profile("m", S, predict_function = function(mm, nd) m$f(nd), variables = vars,
                       type = "accumulated", intervals = K, N = NULL, bands = "analytic",
                       keep_ice = FALSE, threads = 1)
    a <- p$agr_profiles
    do.call(rbind, lapply(vars, function(v) {
      r <- a[a$`_vname_` == v, ]
      e <- as.numeric(r$`_x_`)
      s <- four_se(m$f, S, v, e)
      same <- kinds[vapply(kinds, function(kk) isTRUE(all.equal(s[[kk]], r$`_se_`, tolerance = 1e-8)), NA)]
      stopifnot(length(same) >= 1L)
      installed <<- union(installed, same[1L])
      data.frame(point = paste(v, seq_along(e)), err = r$`_yhat_` - pop_al(m$f, m$pop, v, e, fbar),
                 as.data.frame(s[kinds]))
    }))
  }))
  z <- qnorm(0.975)
  by_point <- split(d, d$point)
  ratio <- function(col) median(vapply(by_point, function(b) mean(b[[col]]) / sd(b$err), 1))
  cover <- function(col) 100 * mean(abs(d$err) <= z * d[[col]])
  row <- data.frame(model = mn, N = N, K = K)
  for (kk in kinds) row[[paste0("cover_", kk)]] <- round(cover(kk), 1)
  for (kk in kinds) row[[paste0("ratio_", kk)]] <- round(ratio(kk), 2)
  res[[length(res) + 1L]] <- row
  print(row, row.names = FALSE)
}
tab <- do.call(rbind, res)
options(width = 200)
lines <- c(
  "Analytic bands of interval AL and the counts of its centring (inst/bench/bench-bands-al-centring.R)",
  sprintf("%s; R %s; modelprofiles %s; %d samples per cell.", format(Sys.Date()), getRversion(),
          utils::packageVersion("modelprofiles"), R),
  "", lines,
  sprintf("The installed package's standard errors are the '%s' ones.", paste(installed, collapse = "', '")),
  "Pointwise coverage (%) of 95 % bands with the four standard errors (see the script's header);",
  "ratio = median over edges of mean(SE) / sd(estimate - estimand).", "",
  capture.output(print(tab, row.names = FALSE))
)
dir.create(dirname(out_file), showWarnings = FALSE, recursive = TRUE)
writeLines(lines, out_file)
cat(lines, sep = "\n")
