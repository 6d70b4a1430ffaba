#' Sampling bands of profiles: how sure is a profile?
#'
#' A profile is an average over the background rows, so it varies from one
#' sample of rows to another. With `bands = "analytic"` or
#' `bands = "bootstrap"`, [model_profile()] and [model_profile_2d()] report
#' that sampling uncertainty as pointwise bands at `level` (0.95 by
#' default), computed from the per-row contributions the estimate is made
#' of, the ICE values at each grid point, each row's local effect in its AL
#' interval, each row's kernel weight, so that **no extra prediction** is
#' made.
#'
#' @section Band settings:
#' The `bands` argument of [model_profile()], [model_profile_2d()],
#' [compare_profiles()] and [h_statistic()] takes the kind of bands, a
#' string, or a setting made by `profile_bands()`, which also holds the
#' level and the number of resamples: `bands = "bootstrap"` is
#' `bands = profile_bands("bootstrap", level = 0.95, B = 200)`. Each entry
#' point takes the kinds its `bands` argument lists. (The entry points'
#' own `level` and `B` arguments are deprecated: they still work, with a
#' warning, for one release.)
#'
#' @section Analytic bands:
#' For a weighted mean \eqn{m = \sum_i k_i y_i / K}{m = sum(k y) / K},
#' \eqn{K = \sum_i k_i}{K = sum(k)}, the standard error is the linearised
#' (sandwich) one with the small-sample factor of Kish's effective sample
#' size \eqn{n_{eff} = K^2 / \sum_i k_i^2}{n_eff = K^2 / sum(k^2)}:
#' \deqn{se(m)^2 = \frac{n_{eff}}{n_{eff} - 1} \sum_i k_i^2 (y_i - m)^2 / K^2,}{se(m)^2 = n_eff / (n_eff - 1) * sum(k^2 (y - m)^2) / K^2,}
#' which for equal weights is the familiar \eqn{s^2 / n}{s^2 / n}; the band
#' is \eqn{m \pm z_{(1 + level)/2}\, se}{m -/+ qnorm((1 + level) / 2) se}, and
#' `NA` where \eqn{n_{eff} \le 1}{n_eff <= 1} (one row).
#' * PD: \eqn{y_i} the ICE values at a grid point, \eqn{k_i} the case
#'   weights; the same for each cell of a 2-D PD. `plot(..., center =)`
#'   draws the band of the centred PD, the standard error of the mean of the
#'   centred ICE curves (from `$cp_profiles`).
#' * LD: \eqn{k_i} the kernel weights at the grid point times the case
#'   weights (so \eqn{n_{eff}}{n_eff} is that of the kernel), or the rows of
#'   the grid point's interval, or of the level of a factor.
#' * AL: the profile at its edges is \eqn{h = A m + \bar f}{h = A m + mean(f)},
#'   a linear map A of the interval means m of the local effects (given the
#'   edges and the interval counts that weigh its centring) plus the mean
#'   prediction it is shifted by. Each row lies in one interval, so the
#'   interval means are independent given the edges, and the accumulation is
#'   a cumulative sum; the centring constant is a linear combination of the
#'   accumulated effects. Rather than ignore the covariance these bring, the
#'   variance is propagated exactly by linearisation: row i moves the
#'   profile through its interval's mean, through the mean prediction and,
#'   since the edges are sample quantiles, through the interval shares
#'   \eqn{\pi_k = W_k / W}{pi_k = W_k / W} that weigh the centring
#'   \eqn{c = \sum_k \pi_k mid_k}{c = sum_k pi_k mid_k} (\eqn{mid_k}{mid_k} the
#'   midpoint of the accumulated effects over interval k):
#'   \eqn{u_i = A_{\cdot k(i)} w_i (d_i - m_{k(i)}) / W_{k(i)} + w_i (f_i - \bar f) / W - w_i (mid_{k(i)} - c) / W}{u_i = A[, k(i)] w_i (d_i - m[k(i)]) / W[k(i)] + w_i (f_i - mean(f)) / W - w_i (mid[k(i)] - c) / W}
#'   (\eqn{d_i}{d_i} its local effect, \eqn{f_i}{f_i} its prediction), and
#'   \eqn{se(h)^2 = \sum_i u_i^2}{se(h)^2 = sum(u_i^2)} with the factor
#'   \eqn{n_{eff,k} / (n_{eff,k} - 1)}{n_eff[k] / (n_eff[k] - 1)} on each
#'   interval's mean and \eqn{n_{eff} / (n_{eff} - 1)}{n_eff / (n_eff - 1)}
#'   on the rest.
#'   A categorical variable's AL is the same with the pairs of adjacent
#'   levels for intervals (a row contributes to up to two pairs, and to the
#'   centring through its level's share; one factor
#'   \eqn{n_{eff} / (n_{eff} - 1)}{n_eff / (n_eff - 1)}); kernel AL
#'   with the kernel-weighted means of the ICE curves' grid differences (a
#'   row contributes to every grid step, and A includes the centring by
#'   interpolation at the rows' values, and each row's weight in it);
#'   second-order AL with the cells'
#'   means of the second differences through the accumulation, the removal
#'   of both first-order effects, the filling of empty cells and the
#'   centring (no shift), and, since the cells' counts b that weigh the removal
#'   and the centring are sampled too, each row's influence through its
#'   cell's count, \eqn{w_i \partial h / \partial b_{c(i)}}{w_i dh/db[c(i)]} (the
#'   surface is a ratio of b-weighted sums, and its derivative in b is computed
#'   exactly, by the complex step; without this term a surface whose second
#'   differences do not vary within cells, such as that of \eqn{x_1 x_2}{x1 x2},
#'   would have bands of width 0). A is computed as the map's matrix, so it
#'   is exact. Where the sample leaves a cell empty, the surface takes the
#'   nearest cell's value (ALEPlot's fill): the band there is conditional on
#'   that extrapolation, and does not cover the population's own value of the
#'   cell (see the coverage table in \code{inst/bench/results}).
#'
#' @section Bootstrap bands:
#' `B` resamples of the background rows (drawn with replacement, after the
#' draw of the `N` rows, from R's random-number stream: reproducible with
#' `seed`, the same for any number of threads) weigh the stored
#' contributions: each replicate is the estimator recomputed with each row's
#' weight times the number of times it was drawn, on the same grid, edges and
#' bandwidth; the band holds the percentiles of the replicates (where at
#' least half of them are defined). An AL interval (or 2-D cell) that a
#' resample leaves empty keeps the full sample's mean local effect, with
#' weight 0 in the centring. The replicates are in `$replicates`, a row per
#' row of `$agr_profiles`.
#'
#' @section What the bands do not include:
#' * The uncertainty of the model: the bands hold the model fixed and vary
#'   the background rows. Bands that include refitting the model need the
#'   model refitted on resampled training data.
#' * The choice of the grid, of the AL edges (held fixed: the bands are
#'   conditional on them) and of the kernel's bandwidth: LD and kernel AL
#'   estimate a smoothed profile, and the band is around that.
#' * Simultaneity: a 95 % band covers the profile at each grid point with
#'   about 95 % probability, not the whole curve at once.
#'
#' The coverage of the bands was measured by simulation
#' (`inst/bench/bench-bands-coverage.R` and the vignette on bands).
#'
#' @examples
#' fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
#' X <- mtcars[c("wt", "hp", "qsec")]
#' pd <- model_profile(fit, X, variables = "wt", grid_points = 20, bands = "analytic")
#' head(pd$agr_profiles)
#' plot(pd)
#' al <- model_profile(fit, X, variables = "wt", type = "accumulated",
#'                     grid = profile_grids(intervals = 5),
#'                     bands = profile_bands("bootstrap", level = 0.9, B = 100), seed = 1)
#' plot(al)
#' # A band setting on its own.
#' profile_bands("bootstrap", level = 0.9, B = 100)
#' @name profile_bands
NULL
