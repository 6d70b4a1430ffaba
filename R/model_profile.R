#' Partial-dependence, local-dependence and accumulated-local profiles
#'
#' `model_profile()` explains a fitted model by how its predictions depend on
#' one variable at a time. It computes the profiles of chapter 18 of
#' *Explanatory Model Analysis* (Biecek and Burzykowski, 2021):
#'
#' * `type = "partial"`: the partial-dependence (PD) profile (Friedman, 2001),
#'   the mean of the ceteris-paribus (ICE) curves,
#'   \eqn{g_{PD}(z) = \frac{1}{n}\sum_i f(x_i^{j=z})}{g(z) = mean_i f(x_i^{j=z})}
#'   (eq. 17.2); the ICE curves are kept in `$cp_profiles`.
#' * `type = "conditional"`: the local-dependence (LD) profile, a mean of the
#'   ICE curves weighted by how close each row's own value is to `z`:
#'   Gaussian kernel weights `dnorm(z - x_i, 0, bandwidth)` (eq. 18.5,
#'   `method = "kernel"`, the default) or the rows in the same interval as `z`
#'   (eq. 18.4, `method = "interval"`, Apley's intervals as for AL). For a
#'   categorical variable the weights are the indicators of `x_i = z`.
#' * `type = "accumulated"`: the accumulated-local (AL, ALE) profile of Apley
#'   and Zhu (2020). `method = "interval"` (the default, eq. 18.8) uses the
#'   edges `unique(c(min(x), quantile(x, seq(1/K, 1, length.out = K), type = 1)))`
#'   of ALEPlot, two predictions per row (at the edges of its interval), and
#'   reports the profile at the edges; `method = "kernel"` is the
#'   kernel-smoothed estimator of eq. 18.9 on an evenly spaced grid of
#'   `points` values (of `grid`).
#'
#' **For DALEX users.** DALEX has a `model_profile()` too: whichever of
#' DALEX and modelprofiles is attached last (`library()`) masks the other's,
#' and `modelprofiles::model_profile(explainer, ...)` always calls this one.
#' With modelprofiles attached last, DALEX's calls work unchanged:
#' `model_profile(explainer, variables, N)` by position, `type`, `groups`,
#' `k`, `center`, `variable_type`, `span`, `grid_points`, `variable_splits`
#' and `variable_splits_type` mean what they mean in DALEX (see the section on
#' DALEX explainers for the differences: the default `N`, every kind of
#' variable, and the explainer's `weights`, which are used). `plot()`
#' draws DALEX results next to these ([plot.mp_profile()]), DALEX's
#' `plot(dalex_result, x)` draws these next to its own, and [as_dalex()]
#' converts these to DALEX's objects.
#'
#' @param x A fitted model, or a DALEX explainer (from `DALEX::explain()`),
#'   whose model, data, predict function and label are used (DALEX itself is
#'   not needed).
#' @param data A data frame (or matrix) of background rows, without the
#'   response. Required for a model; for an explainer it replaces the
#'   explainer's data.
#' @param predict_function `NULL` (the model family's own, see
#'   [default_predict_function()]) or a function `function(model, newdata)`
#'   (or `function(newdata)`, as for iml and hstats) returning one number per
#'   row, or a matrix of class probabilities with a column per class.
#' @param variables Names of the variables to profile; `NULL` for every
#'   column that can be profiled (constant and unsupported columns are skipped
#'   with a message).
#' @param type `"partial"`, `"conditional"` or `"accumulated"`.
#' @param N Number of background rows to sample when `data` has more;
#'   `NULL` uses all rows. The default, 1000, is ten times DALEX's: enough for
#'   stable profiles, and still fast.
#' @param method For `"conditional"` and `"accumulated"`: `"kernel"` or
#'   `"interval"`; the default is `"kernel"` for LD and `"interval"` for AL.
#' @param grid Where the profiles are evaluated: a number of grid points,
#'   or a [profile_grids()] setting of the number of `points` (101 by
#'   default), their `type` (`"quantiles"`, the default, `"uniform"`,
#'   `"distinct"`, or `"splits"`, the exact grid of a tree ensemble), given
#'   `splits` per variable, the number of `intervals` K of the interval
#'   methods (40 by default), the `level_order` of categorical AL profiles
#'   and `na_level`, missing values as a level; see [profile_grids()] and
#'   the section on grids. DALEX's `grid_points`, `variable_splits_type`
#'   and `variable_splits` are taken too (in `...`).
#' @param bandwidth `NULL` or the kernel's standard deviation (one positive
#'   number, or a vector named by profiled variables, e.g. `c(x1 = 0.1)`;
#'   a name that is not a profiled variable is an error).
#' @param label Label of the model in the result; by default the explainer's
#'   label or the model's class.
#' @param seed `NULL` or a number. With a number, the call runs on a
#'   random-number stream seeded by it, so that the draw of the `N` rows
#'   (and of bootstrap resamples) is reproducible, and so are the model's
#'   own random draws, if its `predict()` makes any (ranger's does); the
#'   session's stream is left exactly as it was before the call (a
#'   `.Random.seed` is put back, or none is left where there was none).
#'   With `NULL`, the call draws from the session's stream, and nothing is
#'   promised about it: the draw of the rows advances it, and so may the
#'   model's `predict()`.
#' @param threads Number of threads of the C++ loops; see
#'   [profile_threads()].
#' @param memory_budget Memory, in MiB, that a call may use beyond the data
#'   (option `modelprofiles.memory_budget`, default 256). Rows are stacked
#'   and predicted in chunks that fit in it, counting the copies the model's
#'   `predict()` makes (see [model_adapter()]); under a [future::plan()] it
#'   holds per process. `Inf` means no limit. A budget smaller than
#'   chunks of 16,384 rows need is raised to that need, with a warning
#'   that says how much was used: smaller chunks would only be slower (the
#'   numbers do not depend on the budget).
#' @param keep_ice Keep the ICE curves (`$cp_profiles`) where they are
#'   computed (PD, kernel LD and kernel AL), as long as all of them together
#'   fit in half of `memory_budget` (8 bytes a curve point; 16 bytes a row
#'   for curves of the linear engine, kept as each row's intercept and
#'   slope); the curves of variables that do not fit are dropped, with one
#'   message. They are kept compactly (an [mp_ice] object): DALEX's long
#'   data frame is made only from what is read, each time it is read.
#' @param groups `NULL`; the name of a column of `data`, or a vector with
#'   one value per row of `data`, whose values split the background rows
#'   into subgroups, profiled each (see the section on subgroups); a
#'   [profile_groups()] setting of them, with the number of `bins` of a
#'   numeric column (3), the `min_size` of a subgroup (10 rows), the
#'   `title` of a vector in legends and the `al_shift` of AL profiles; or a
#'   [profile_clusters()] setting: `k` clusters of ICE curves, for partial
#'   dependence (see the section on clusters). DALEX's `k` and `center` are
#'   taken too (in `...`).
#' @param class For classifiers whose predict function returns a column of
#'   probabilities per class: the class (name or column number) to profile,
#'   or several; by default the second of two classes, or every class of a
#'   multiclass model (see [default_predict_function()]).
#' @param weights `NULL`, the name of a column of `data`, or a vector with one
#'   non-negative case weight per row of `data` (an explainer's `weights` by
#'   default). See the section on case weights.
#' @param bands Bands around each profile: `"none"`; sampling bands
#'   `"analytic"` (standard errors from the per-row contributions the
#'   estimate is made of) or `"bootstrap"` (percentiles over `B` resamples
#'   of the background rows, recomputed from the same contributions),
#'   neither of which makes a single extra prediction; or, for partial
#'   dependence of a ranger or randomForest forest through the native
#'   engine, the forest's own uncertainty: `"trees"` (percentiles of the
#'   per-tree profiles) or `"infjack"` (the infinitesimal jackknife of
#'   Wager, Hastie and Efron (2014), for forests grown with
#'   `keep.inbag = TRUE`). A kind alone has a level of 0.95 and, for the
#'   bootstrap, 200 resamples; for others, give a setting of
#'   [profile_bands()], such as
#'   `bands = profile_bands("bootstrap", level = 0.9, B = 500)`. See
#'   [profile_bands] for the formulas and what the bands do and do not
#'   include, and [refit_bands()] for bands over refitted models.
#' @param engine How predictions are made: `"predict"` (the predict
#'   function), `"native"` (the package's compiled copy of a supported tree
#'   ensemble, evaluated in parallel C++ without building data frames, or
#'   the linear predictor of a linear model; an error when it cannot be
#'   used) or `"auto"` (the default: native when the model is supported and
#'   `predict_function` is not given, else predict). See the section on the
#'   native engine. A forest or booster inside a modelling framework
#'   (parsnip, workflows, caret, mlr3) is compiled when the framework passes
#'   the data's columns to it as they are; where its preprocessing changes
#'   them, the framework's `predict()` is used, and `"native"` is an error
#'   that says why (see [model_profile()]'s section on the native engine).
#' @param ... DALEX's names (see the section on DALEX explainers), taken
#'   by name only:
#'   * `grid_points`, `variable_splits_type`, `variable_splits`: the fields
#'     `points`, `type` and `splits` of `grid`;
#'   * `k`, `center`: `groups = profile_clusters(k, center)` (`center`
#'     without `k` changes nothing, as in DALEX); for kernel AL
#'     (`type = "accumulated", method = "kernel"`), `center = TRUE` centres
#'     as DALEX does: the profile's unweighted mean over its grid points is
#'     the mean prediction (by default, its weighted mean at the background
#'     rows' own values is; the two differ by a constant per variable), so
#'     that with `span` and DALEX's grid it gives DALEX's AL profile;
#'   * `variable_type`: `NULL` (every kind of variable) or `"numerical"`
#'     or `"categorical"`: profile only the variables of that kind
#'     (numeric, date and time-difference columns; or factors, character
#'     and logical columns). Named `variables` of the other kind are left
#'     out with a message. DALEX's default is `"numerical"`; this
#'     package's, `NULL`;
#'   * `span`: one positive number, for the kernel methods: the bandwidth
#'     of each numeric variable is `span` times the range of its grid (of
#'     `variable_splits`, or of the variable's values in `data`, from which
#'     the grid is made), as in DALEX. Give `span` or `bandwidth`, not
#'     both.
#'
#'   Deprecated, for one release (with a warning that says what to use):
#'   `intervals`, `level_order`, `na_level` (fields of `grid`),
#'   `group_bins`, `min_group_size`, `group_title`, `al_shift` (of
#'   `groups = profile_groups()`), `cluster_center` (of
#'   `profile_clusters()`), `level` and `B` (of `bands =
#'   profile_bands()`). Any other name is an error; names are matched in
#'   full, never partially.
#'
#' @returns An object of class `mp_profile`: a list with
#'   * `agr_profiles`: a data frame with DALEX's columns `_vname_`,
#'     `_label_`, `_x_`, `_yhat_`, `_ids_` (`_x_` is on the variables' scale:
#'     numeric (integer for integer columns), Date, POSIXct or difftime; or
#'     character when the variables' scales differ or one is categorical; see
#'     the section on grids), and `_support_`, the number of background rows
#'     (with weights, the sum of their weights) near each grid point; for
#'     partial dependence, `_extrapolation_`, the share of the points
#'     averaged at each grid point that lie outside the data (see
#'     [extrapolation]; the field `extrapolation` gives the setting: `q`, `level`,
#'     `threshold`, `reference` rows, the `variables` of the space, and the
#'     `rows` evaluated `of` the background rows);
#'   * `cp_profiles`: the ICE curves, or `NULL`: a data frame of class
#'     [mp_ice] that keeps them compactly (a few bytes a curve point), with
#'     DALEX's long columns `_vname_`, `_label_`, `_ids_` (the row of
#'     `data`), `_x_` and `_yhat_` (for partial dependence also
#'     `_extrapolation_`, each point's verdict, 1 outside the data and 0
#'     inside), ingredients' wide columns (one per
#'     profiled variable) and attribute `"observations"`; its columns are
#'     made from the compact curves when they are read (a subset reads only
#'     its rows), and `print()`, `str()`, `summary()`, `plot()` and
#'     `saveRDS()` never make them. Data-frame code and ingredients'
#'     functions (`aggregate_profiles()`, `show_observations()`) take it as
#'     it is; [as_dalex()] gives DALEX's own objects;
#'   * `type`, `method`, `variables`, `label`, `grids` (grid or edges per
#'     variable), `intervals` (the number K of intervals used: a matrix
#'     with a row per variable and a column per subgroup, `"all"` without
#'     subgroups; `NULL` for methods without intervals), `bandwidth` (per
#'     variable), `N` (rows used), `rows` (which rows of `data`),
#'     `observed` (the background rows' values of the profiled variables),
#'     `labels` (one per profiled class), `class` (the profiled classes, or
#'     `NULL`), `task` (the model's, `"regression"` or `"classification"`,
#'     see [model_adapter()]), `weights` (of the background rows, or `NULL`),
#'     `engine` (`"native"` or `"predict"`, the one used),
#'     `mean_prediction` (for AL profiles, the shift each profile was
#'     given: the weighted mean prediction over the background rows where
#'     its variable is observed (over all subgroups' rows with
#'     `profile_groups(al_shift = "common")`); one per profile label, named by it, or,
#'     when the variables are missing in different rows and so have
#'     different shifts, a matrix with a row per variable and a column per
#'     label),
#'     `n_predictions` (how many predictions were made),
#'     `no_support` (grid points without support), `threads`, `call`,
#'     `background_prints` (fingerprints of the background rows' columns,
#'     by which [refit_bands()] tells a changed `background`),
#'     `observed_group` (with subgroups: the subgroup of each row of
#'     `observed`), `prediction_quantiles` (AL: 201 weighted quantiles of
#'     the predictions at the background rows, a column per profile label,
#'     the reference of [effect_sizes()]'s NALED and NALER);
#'   * with `bands`: columns `_lower_` and `_upper_` of `agr_profiles` (and
#'     `_se_`, the standard error, for analytic bands), `bands` (the
#'     setting: `type`, `level`, `B`) and, for bootstrap bands,
#'     `replicates`, a matrix with a row per row of `agr_profiles` and a
#'     column per resample (see [profile_bands]).
#'
#' @references
#' Friedman, J. H. (2001). Greedy function approximation: a gradient boosting
#' machine. *Annals of Statistics*, 29(5), 1189--1232.
#' \doi{10.1214/aos/1013203451}
#'
#' Apley, D. W. and Zhu, J. (2020). Visualizing the effects of predictor
#' variables in black box supervised learning models. *Journal of the Royal
#' Statistical Society Series B*, 82(4), 1059--1086.
#' \doi{10.1111/rssb.12377}
#'
#' Biecek, P. and Burzykowski, T. (2021). *Explanatory Model Analysis*.
#' Chapman and Hall/CRC. \doi{10.1201/9780429027192}
#'
#' @examples
#' fit <- lm(mpg ~ wt * hp + qsec, data = mtcars)
#' X <- mtcars[c("wt", "hp", "qsec")]
#' pd <- model_profile(fit, X, variables = c("wt", "hp"))
#' pd
#' ld <- model_profile(fit, X, variables = "wt", type = "conditional")
#' al <- model_profile(fit, X, variables = "wt", type = "accumulated",
#'                     grid = profile_grids(intervals = 10))
#' head(as.data.frame(al))
#'
#' # A factor: AL orders its levels by similarity of the other columns.
#' d <- transform(mtcars, cyl = factor(cyl))
#' fit2 <- lm(mpg ~ cyl * wt + hp, data = d)
#' model_profile(fit2, d[c("cyl", "wt", "hp")], variables = "cyl", type = "accumulated")
#'
#' # A binary classifier: the probability of the second class, or another.
#' lr <- glm(am ~ wt + hp, data = mtcars, family = binomial)
#' model_profile(lr, mtcars[c("wt", "hp")], variables = "wt", class = "0")
#'
#' # A multiclass model: one profile per class.
#' if (requireNamespace("nnet", quietly = TRUE)) {
#'   mn <- nnet::multinom(Species ~ ., data = iris, trace = FALSE)
#'   plot(model_profile(mn, iris[1:4], variables = "Petal.Length"))
#' }
#'
#' # Case weights: a weight of 2 counts a row twice.
#' w <- rep(1:2, length.out = nrow(mtcars))
#' model_profile(fit, X, variables = "wt", weights = w, grid = 5)
#'
#' # A DALEX explainer, in DALEX's positional order (variables, N).
#' if (requireNamespace("DALEX", quietly = TRUE)) {
#'   ex <- DALEX::explain(fit, data = X, y = mtcars$mpg, label = "lm", verbose = FALSE)
#'   pd_ex <- modelprofiles::model_profile(ex, c("wt", "hp"), NULL)
#'   pd_ex
#'   # Drawn with DALEX's own result:
#'   # plot(pd_ex, DALEX::model_profile(ex, c("wt", "hp"), NULL))
#' }
#' @export
model_profile <- function(x, ...) {
  env <- environment()
  if (missing(x)) check_entry(TRUE, 0L, NULL, "model_profile", env)
  # Every name exact before R matches them to a method's parameters, whose
  # partial matching could reach another argument (`k` would be
  # `keep_ice`); DALEX's names are mapped by the methods' front_door().
  check_arg_names(...names(), "model_profile", env)
  UseMethod("model_profile")
}

#' @rdname model_profile
#' @export
model_profile.default <- function(x, data = NULL, predict_function = NULL, variables = NULL,
                                  type = c("partial", "conditional", "accumulated"), N = 1000, ...,
                                  method = NULL, grid = profile_grids(), groups = NULL,
                                  bands = c("none", "analytic", "bootstrap", "trees", "infjack"), bandwidth = NULL,
                                  keep_ice = TRUE, label = NULL, weights = NULL, class = NULL, seed = NULL,
                                  threads = NULL, memory_budget = getOption("modelprofiles.memory_budget", 256),
                                  engine = c("auto", "native", "predict")) {
  env <- environment()
  # Called by model_profile.explainer() rather than dispatched to: errors
  # name the user's call, which R dispatched to that method.
  if (is.null(env$.Generic)) rlang::local_error_call(parent.frame())
  call <- user_call(env)
  door <- front_door(list(...), "model_profile", env)
  check_flag(keep_ice, "keep_ice", env)
  variable_type <- check_variable_type(door$variable_type, env)
  span <- door$span
  if (identical(tolower(type[1L]), "ale")) {
    cli::cli_abort(c("{.arg type} must be one of {.val partial}, {.val conditional} or {.val accumulated}, not {.val {type}}.",
                     i = "ALE profiles are {.code type = \"accumulated\"}."), call = env)
  }
  type <- arg_one(type, c("partial", "conditional", "accumulated"), "type", env,
                  hint = "Profiles of several types are one call each, drawn in one chart by {.code plot(model_profile(..., type = \"partial\"), model_profile(..., type = \"accumulated\"))}.")
  g <- grid_settings(grid, door$grid, list(points = 101L, type = "quantiles", splits = NULL, intervals = 40L,
                                           level_order = "similarity", na_level = FALSE), env)
  sub <- group_settings(groups, door, list(bins = 3L, min_size = 10L, title = NULL, al_shift = "group"),
                        env, clusters = TRUE)
  if (identical(sub$kind, "clusters")) {
    if (is.null(sub$k)) cli::cli_abort("{.arg k} is missing: give a number of clusters.", call = env)
    if (type != "partial") {
      cli::cli_abort("{.arg k} clusters ICE curves, which partial-dependence profiles have; use {.code type = \"partial\"}.", call = env)
    }
    if (!identical(bands_kind(bands), "none")) {
      cli::cli_abort("{.arg bands} are drawn around profiles, not around clusters of ICE curves; give {.arg bands} or {.arg k}, not both.", call = env)
    }
    keep_ice <- TRUE
  }
  start <- start_call("model_profile", env, list(), x, data, predict_function, label, weights, threads,
                      memory_budget, seed, engine, bands, band_kinds, door$level, door$B)
  on.exit(start$restore_seed(), add = TRUE)
  inputs <- start$inputs
  if (inputs$bands$type %in% c("trees", "infjack") && type != "partial") {
    cli::cli_abort("{.code bands = \"{inputs$bands$type}\"} are bands of partial dependence, from the trees of a forest; use {.code type = \"partial\"}.", call = env)
  }
  N <- check_N(N, env)
  method <- resolve_method(type, method, env)
  check_span(span, bandwidth, type, method, env)
  inform_unused(type, method, c(grid_points = "points" %in% g$given, intervals = "intervals" %in% g$given,
                                bandwidth = !is.null(bandwidth), variable_splits_type = "type" %in% g$given))
  grouping <- if (identical(sub$kind, "groups")) resolve_group_values(sub$by, inputs$data, sub$title, env)
  explicit <- !is.null(variables)
  variables <- profile_variables(inputs, variables, type, grouping$column, names(g$splits), env)
  variables <- variables_of_type(variables, inputs$data, variable_type, explicit, env)
  if (!is.null(span)) bandwidth <- span_bandwidth(span, inputs, variables, g$splits)
  s <- profile_settings(
    type, method, g$points, g$type, check_splits(g$splits, inputs$data, variables, env, g$na_level),
    g$intervals, check_bandwidth(bandwidth, variables, env), isTRUE(keep_ice), g$level_order, g$na_level
  )
  s$al_center <- check_al_center(door$clusters$center$value, type, method, inputs$bands$type, env)
  rows <- setup_rows(inputs, N, seed)
  s$native <- native_for(start$engine, type, method, length(rows), inputs)
  setup <- new_setup(inputs, rows, class, if (s$native) start$engine else "predict", linear = type == "partial")
  gp <- if (is.null(grouping)) list(parts = whole_part(setup)) else
    group_parts(setup, grouping$values, sub$bins, sub$min_size, grouping$title)
  parts <- gp$parts
  run <- run_profiles(setup, inputs, s, variables, parts, new_progress(length(variables) * length(parts)))
  res <- profile_result(setup, inputs, s, variables, parts, run, call, gp$info, sub$al_shift %||% "group")
  if (identical(sub$kind, "clusters")) res <- cluster_result(res, run$raw[[1L]], sub$k, sub$center, env)
  res
}

# DALEX's call, model_profile(explainer, variables, N): its positions
# mapped to names and handed on to the default method.
#' @rdname model_profile
#' @export
model_profile.explainer <- function(x, variables = NULL, N = 1000, ...) {
  env <- environment()
  nms <- ...names()
  if (...length() && (is.null(nms) || any(is.na(nms) | !nzchar(nms)))) {
    cli::cli_abort(c(
      "An explainer takes {.arg variables} and {.arg N} by position, as in {.fn DALEX::model_profile}; name the other arguments.",
      i = "E.g. {.code model_profile(explainer, \"x1\", 500, type = \"accumulated\")}."
    ), call = env)
  }
  # A data frame or matrix given second is the background data, as for a
  # model (the package's own order); the slot it took takes its default.
  data <- NULL
  if (is.data.frame(variables) || is.matrix(variables)) {
    data <- variables
    variables <- if (is.character(N)) N
    if (is.character(N)) N <- eval(formals(model_profile.default)$N)
  } else if (is.data.frame(N) || is.matrix(N)) {
    data <- N
    N <- eval(formals(model_profile.default)$N)
  }
  if (is.null(data)) return(model_profile.default(x, variables = variables, N = N, ...))
  if ("data" %in% nms) cli::cli_abort("{.arg data} is given twice: by position and by name.", call = env)
  model_profile.default(x, data = data, variables = variables, N = N, ...)
}
