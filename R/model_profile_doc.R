#' @name model_profile
#' @rdname model_profile
#' @section Grids:
#' The grids are set by `grid = profile_grids(points, type, splits,
#' intervals)` (DALEX's `grid_points`, `variable_splits_type` and
#' `variable_splits`). A numeric variable with at most `points` distinct
#' values is profiled at exactly those values. Otherwise the grid is `points`
#' quantiles (`type = "quantiles"`, type-7 quantiles at
#' `seq(0, 1, length.out = points)`, duplicates dropped) or an evenly
#' spaced sequence from the minimum to the maximum (`"uniform"`), or values
#' that occur, at evenly spaced positions among the sorted distinct values
#' (`"distinct"`; see [profile_grid()]). Factors, character and logical
#' columns are profiled at the values that occur (in factor-level order). Grids come from all rows of `data` (with `weights`,
#' a row of weight w counting as w rows; see the section on case weights);
#' `splits` gives a grid per variable to use as it is. AL profiles
#' use Apley's edges (interval method) or an even grid over the background
#' rows (kernel method); for interval AL, `splits` gives the edges
#' instead (rows outside them are left out, with a warning).
#'
#' Grids keep the type of the column. An integer column gets integer grid
#' values: its quantile grid is of type-1 quantiles (values that occur), its
#' uniform and kernel-AL grids are rounded to whole numbers (duplicates
#' dropped), and its Apley's edges are values that occur, so the predict
#' function gets an integer column (a `splits` grid with fractions
#' is passed as doubles). Dates (`Date`), date-times (`POSIXct`) and time
#' differences (`difftime`) are profiled on their own scale: the grid is
#' made on their numbers (days, seconds, the column's units; type-1
#' quantiles and whole days for Dates, type-7 quantiles for the others),
#' its values are of the column's class (with its time zone or units), and
#' so are the column handed to the predict function, `$grids` and `_x_`.
#' LD kernels and intervals and AL intervals work on those numbers
#' (`bandwidth` in days, seconds or the units) and are reported on the
#' column's scale. `splits` for such a column are numbers on that
#' scale or values of its class (time differences in any units). When the
#' profiled variables have different scales (numbers and Dates, say, or
#' any categorical variable), `_x_` is character (`as.character()` of the
#' values) and `$grids` keeps each variable's own class; `plot()` reads the
#' values back on their scale.
#'
#' @section Exact profiles of tree ensembles:
#' With `variable_splits_type = "splits"` the grid points of a numeric
#' variable are where the model's splits change side (and the data's
#' ends): the profile is a step function exact everywhere. `$steps` says
#' where a point's value holds, as `geom_step(direction = )`: `"vh"` up to
#' the point from the previous one (ranger, randomForest, lightgbm: `x <=
#' t` goes left), `"hv"` from the point up to the next (gbm, xgboost: `x <
#' t`). The points are the thresholds where the model compares doubles;
#' xgboost rounds x to the nearest float before comparing it with its float
#' t (0.2 rounds up onto 0.2f = 0.20000000298...), so its point is the
#' smallest double that rounds to t, and every double takes the model's side.
#'
#' @section Background rows:
#' Profiles average over `N` rows drawn without replacement from `data` when
#' it has more (`N = NULL` uses all rows). With `seed = NULL` the draw uses,
#' and advances, the session's random-number stream exactly as one call of
#' `sample.int()` does (and the model's `predict()` may draw more: nothing
#' is promised about the stream then); with a `seed` the draw is
#' reproducible, the whole call runs on the seeded stream, and the
#' session's stream is exactly as it was before the call, whatever the
#' model's `predict()` drew. Nothing is drawn when all rows are used.
#'
#' @section AL for categorical variables:
#' A categorical variable has no order that AL could accumulate along, so
#' its levels are ordered first: unordered factors and character columns as
#' ALEPlot orders them, by the first coordinate of a classical
#' multidimensional scaling ([stats::cmdscale()]) of distances between the
#' levels summed over all other columns of `data` (the Kolmogorov-Smirnov
#' distance between the levels' distributions of a numeric column, at 100 of
#' its quantiles; the total variation distance for a categorical one), so
#' that similar levels are neighbours. Each row then contributes its
#' prediction difference to the next level up and from the next level down;
#' the differences are averaged per pair of adjacent levels, accumulated,
#' and centred with the levels' frequencies (Apley and Zhu, 2020, section
#' 5.2). The values equal `ALEPlot::ALEPlot()`'s plus the mean prediction.
#'
#' @section Centring of AL profiles:
#' The accumulated interval effects are centred with ALEPlot's constant (the
#' count-weighted mean of the interval midpoints of the accumulated effects,
#' so that the increments between edges equal `ALEPlot::ALEPlot()`'s), then
#' shifted by the mean prediction over the background rows, so that PD, LD and
#' AL profiles are on the scale of the predictions and can be drawn in one
#' chart. Subtract `result$mean_prediction` to get ALEPlot's values: it is
#' always the shift that was applied, the mean prediction over the rows
#' where the variable is observed (a matrix with a row per variable when
#' variables are missing in different rows, see the section on missing
#' values). The mean prediction costs one prediction per background row,
#' once per call.
#'
#' @section Bandwidth and support:
#' The kernel methods use a Gaussian kernel whose standard deviation is, per
#' variable, Silverman's rule of thumb `stats::bw.nrd0()` of the background
#' values (of the weighted sample with `weights`; see the section on case
#' weights), unless `bandwidth` is given (one number, or a named vector per
#' variable). DALEX uses a quarter of the grid's range, which smooths so much
#' that the LD profile shows little more than a straight line;
#' Silverman's rule is the standard rule for kernel smoothers and adapts to
#' the sample size. The weights are computed relative to the nearest row, so
#' they never underflow: the nearest rows weigh 1, and with a bandwidth so
#' small that the others weigh 0 (even below 1e-162, where the kernel's
#' variance underflows) a grid point at a row's value is that row's
#' prediction. A grid point of an LD profile with no background row
#' within three bandwidths (kernel), outside the range of the background rows
#' (interval), or a level without rows (categorical) has no support: its
#' value is `NA`, with a warning, instead of the 0 DALEX reports.
#'
#' @section Missing values:
#' * In the profiled variable: a PD profile sets the column to each grid
#'   value, so rows with a missing value in it are used as usual. LD and AL
#'   profiles need each row's own value: rows with a missing value are left
#'   out of that variable's profile, with one warning that says how many
#'   (they are not predicted, and an AL profile is then shifted by the mean
#'   prediction over the rows it uses, the shift `$mean_prediction`
#'   reports). This holds for every engine. For a
#'   categorical variable, `grid = profile_grids(na_level = TRUE)` makes the missing values a level
#'   of their own instead (the grid point `NA`, last, or placed by similarity
#'   for AL): PD sets the column to `NA` (the model must accept it), LD
#'   averages the rows with a missing value, AL accumulates the differences
#'   to and from it.
#' * In other columns: passed to the predict function as they are.
#' * Infinite values (`Inf`, `-Inf`) in a profiled numeric variable are an
#'   error naming it (a variable not named in `variables` is skipped with a
#'   message); in other columns they are passed on as they are.
#' * In the predictions: an error that says how many, never a silently
#'   dropped row.
#' * In the `groups` column: those rows are left out, with a warning.
#' * Grids are computed without the missing values.
#'
#' @section Support of each grid point:
#' `agr_profiles$_support_` is the number of background rows whose own value
#' lies in the grid point's cell (numeric: between the midpoints to the
#' neighbouring grid points, the outer cells as wide outside as inside;
#' categorical: at the level). Grid points with little or no support are
#' where a profile extrapolates: a PD profile there averages predictions for
#' data the model never saw. The rug of [plot()][plot.mp_profile] shows the
#' same.
#'
#' @section Subgroups:
#' With `groups = "column"` the background rows (after sampling `N` of them)
#' are split by the column's values, a numeric column with more than
#' `bins` distinct values (`groups = profile_groups("column", bins = 3)`)
#' into `bins` bins at its quantiles
#' (`cut()` with `include.lowest = TRUE`), and every profile is computed within
#' each subgroup: PD and LD average over the subgroup's rows on the grid of
#' all rows, AL uses the subgroup's own edges and is centred within the
#' subgroup (on the subgroup's mean prediction). Rows with a missing group are
#' left out with a warning; subgroups smaller than `min_size` are left
#' out with a message. Each profile is labelled `<label>_<group>` (as DALEX
#' does) and `agr_profiles` gets a `_groups_` column.
#'
#' @section Clusters of ICE curves:
#' A partial-dependence profile averages ICE curves that may move in
#' opposite directions. With `groups = profile_clusters(k)` (DALEX's `k`),
#' the background rows are grouped by their
#' ICE curves, over all profiled variables (and classes) together, with
#' Ward's hierarchical clustering (`stats::hclust(method = "ward.D2")`) of
#' the root-mean-square distances between curves (each curve, all variables
#' together, centred on its mean with `center = TRUE`), as
#' `DALEX::model_profile(k = )` does (`ingredients::cluster_profiles()`),
#' and cut into `k` clusters. The
#' result holds the (weighted) mean curve of each cluster, labelled
#' `<label>_<cluster>` with a `_cluster_` column, instead of the overall
#' profile; `$clusters` gives each background row's cluster, and the ICE
#' curves in `$cp_profiles` carry their cluster's label, so that
#' `plot(x, geom = "profiles")` colours them by cluster.
#'
#' @section Classifiers:
#' A predict function that returns a matrix of class probabilities gives a
#' profile of one class: the second of two (the "positive" class, as for
#' `glm(family = binomial)`, whose default predict function returns both
#' classes) unless `class` chooses another. For a multiclass model every
#' class is profiled, or those in `class`, in one result whose profiles are
#' labelled `<label>.<class>`; all classes come from the same predictions.
#'
#' @section Case weights:
#' Weights are frequencies: with integer weights, a row of weight 2 gives
#' exactly what the row repeated twice gives, in every default as well as
#' in every mean (checked to 1e-12 for PD, LD, AL, two-variable profiles,
#' subgroups, clusters, [h_statistic()], [hidden_interactions()] and
#' [compare_profiles()]). Their sum must be a finite number (weights of
#' 1e308 each are an error: divide them by a constant, which changes no
#' profile). With `weights`:
#' * every mean over background rows is a weighted mean: the PD average of
#'   the ICE curves, the LD kernel or interval means, the AL interval means
#'   of the differences, the AL centring (weighted interval counts) and the
#'   mean prediction;
#' * grids come from all rows of `data` with their weights: weighted
#'   quantiles (of type 7, or type 1 for integer and Date columns) equal to
#'   the quantiles of the rows repeated w times, and the distinct values and
#'   range of the rows of positive weight ([profile_grid()] with `weights`
#'   gives the same grid);
#' * Apley's edges are weighted type-1 quantiles of the background rows;
#' * the default kernel bandwidth is Silverman's rule `stats::bw.nrd0()` of
#'   the weighted sample: the weighted standard deviation (divisor
#'   \eqn{\sum w - 1}{sum(w) - 1}), the weighted interquartile range (type 7)
#'   and \eqn{n = \sum w}{n = sum(w)};
#' * `_support_` is the sum of the weights of the rows in each grid point's
#'   cell; subgroups of a numeric `groups` column are cut at weighted
#'   quantiles; clusters of ICE curves come from Ward's clustering with each
#'   row a cluster of its weight (`hclust(members = )`).
#'
#' Since the defaults count rows, they depend on the total weight: weights
#' multiplied by a constant give the same weighted means over a given grid,
#' but other default grids and bandwidths (the type-7 quantiles and
#' bandwidth of 10 copies of the data are not those of the data). Give
#' `splits` of `grid` or `bandwidth` to fix them. The `min_size` of subgroups and the
#' subgroups' and clusters' `sizes` count rows, not weights. The `N`
#' background rows are drawn without weights and keep theirs; rows of
#' weight 0 are left out (as they are of the grids).
#'
#' @section DALEX explainers:
#' An explainer's model, data, predict function, label and weights are used.
#' Arguments given by position after an explainer are DALEX's:
#' `model_profile(explainer, "wt")` profiles `wt`, `model_profile(explainer,
#' c("wt", "hp"), 500)` draws 500 rows and `model_profile(explainer, "wt",
#' NULL)` uses all rows; give `data` and `predict_function` by name (a data
#' frame given second is still the background data). This is the method
#' for class `explainer`, which hands every argument on by name. DALEX's
#' names are taken by every call, without a warning, with DALEX's meaning:
#' the arguments DALEX passes on to ingredients (`grid_points`,
#' `variable_splits`, `variable_splits_type`: fields of `grid`;
#' `variable_type`, `span`), `groups`, and `k` and `center` (`groups =
#' profile_clusters(k, center)`); with `span` (the bandwidth
#' `span * diff(range(grid))`) LD profiles equal DALEX's. Names are matched
#' in full: a name that is not an argument is an error that names the
#' nearest (`variable` for `variables`, `n` for `N`). Where
#' they differ, on purpose:
#' * `N` is 1000 by default (DALEX: 100), so profiles of the same call
#'   differ by sampling unless `N = NULL` (all rows);
#' * every kind of variable is profiled unless `variable_type` is given
#'   (DALEX: `"numerical"`);
#' * the explainer's `weights` are case weights (DALEX ignores them): the
#'   first time in a session that weights which are not all equal change
#'   the numbers, a message says so; `weights = rep(1, nrow(data))` gives
#'   DALEX's unweighted profiles;
#' * the kernel's default bandwidth (LD profiles, and kernel AL) is
#'   Silverman's rule `stats::bw.nrd0()` of the variable's background
#'   values, per variable; DALEX's is `span = 0.25` of the range of the
#'   variable's grid (its Gaussian kernel's standard deviation is
#'   `0.25 * diff(range(grid))`), a wider kernel, so that LD profiles of
#'   the same call differ: `span = 0.25` gives DALEX's bandwidth (and its
#'   profiles, on DALEX's grid, `variable_splits`);
#' * AL profiles are Apley's interval estimator by default (DALEX's
#'   weights the grid's differences with a kernel; `method = "kernel"` is
#'   that estimator); both are shifted by the mean prediction. Kernel AL is
#'   centred over the background rows (its weighted mean at the rows' own
#'   values is the mean prediction), DALEX's over its grid points (its
#'   unweighted mean over them is): they differ by a constant per variable.
#'   `center = TRUE` centres as DALEX does; with `span` (DALEX's 0.25) and
#'   DALEX's grid (`variable_splits`) the profiles are DALEX's.
#'
#' Whichever of DALEX and modelprofiles is attached last owns
#' `model_profile()`: with DALEX attached last, `model_profile(explainer)`
#' is DALEX's (which needs an explainer) and
#' `modelprofiles::model_profile(explainer)` this one; with modelprofiles
#' attached last, `DALEX::model_profile()` is DALEX's. Either way, both
#' packages' calls work for an explainer. A model and data,
#' `model_profile(fit, data)`, are this package's call only: with DALEX
#' attached last it reaches DALEX's, which stops with "The model_profile
#' function requires an object created with explain() function"; call
#' `modelprofiles::model_profile(fit, data)`, or attach modelprofiles after
#' DALEX. A message says which package owns the name when the second of
#' the two is attached.
#'
#' With DALEX's default predict function (`DALEX::yhat`), the
#' package uses its own for the model's family (see [model_adapter()]): the
#' same probabilities with every class named, and the native engine where it
#' applies. For a binary classifier the second class in the adapter's order
#' is profiled (the second level, or `"1"` of a 0/1 response), which for a
#' ranger forest whose first training row is of class 1 is the column DALEX
#' does not take. Another predict function is used as it is, with the rows
#' as a matrix when the explainer's data is one.
#'
#' @section Native engine:
#' What the package knows of a model family is in its adapter
#' ([model_adapter()]): the default predict function, the class names in
#' the order of its columns, and which engines give the model's own
#' numbers. The native engines stand in for the family's default predict
#' function only (or for DALEX's default, `DALEX::yhat`, in an explainer):
#' a `predict_function` you write is the model, and is always called.
#'
#' For `lm` and `glm` (not mgcv's `gam` and `bam`, whose smooth terms are
#' not linear), a numeric variable that enters the formula by its name alone
#' (as a main effect or in interactions, but not inside `log()`, `poly()`,
#' `I()` or an offset) has a linear predictor that is affine in it, so the
#' partial dependence and ICE curves come from two evaluations of the linear
#' predictor per row (at 0 and 1) through the inverse link, whatever the
#' grid. Other variables and the other profiles use the predict function.
#'
#' Random forests (ranger, randomForest) and gradient-boosted trees (gbm,
#' xgboost, lightgbm) are compiled into one flat representation of their
#' trees (split variables, thresholds, the model's rules for ties, missing
#' values and factor levels, leaf values, the link), which C++ code
#' evaluates in parallel without building data frames. Profiles come from
#' a set walk: the rows of a block go down each tree together, partitioned
#' at each split on another variable, while at a split on the profiled
#' variable (or either variable of a 2-D profile or an H-statistic's pair)
#' the same rows go to both children, each with its part of the grid. A
#' leaf reached by rows R over the grid points a..b adds its value to a
#' difference array over the grid: one per row for ICE curves, or one for
#' all rows, times the weights of R, for partial dependence without curves
#' (`keep_ice = FALSE`, no bands), so that no table of rows x grid points is
#' ever made. The numbers equal the model's own predictions to 1e-12
#' relative (xgboost's: to its single precision), but they are summed in
#' another order: `predict()` adds each row's trees one by one, the set
#' walk adds each leaf's value where its range starts and subtracts it
#' where it ends, and partial dependence sums the rows' weights before the
#' trees, so the last bits can differ. Results do not depend on `threads`.
#' Its outputs are the adapter's classes in the same order, so both
#' engines label every class alike. With `engine = "auto"` this is used when
#' the model is supported; for the interval methods of LD and AL (two
#' predictions per row and variable) it is used when compiling is faster
#' than predicting: always for ranger, randomForest, gbm and xgboost, from
#' 1,000 background rows for lightgbm (whose model text takes longest to
#' read), and whenever the model was compiled by [compile_model()] (a call
#' compiles its model once, for all its profiles, and drops the compilation
#' when it returns). The native engine
#' does not call
#' `predict()` at all (for a large ranger forest each call costs seconds).
#' `$engine` says which engine was used.
#'
#' Every engine uses the trees that the model's own `predict()` uses:
#' xgboost's and lightgbm's iterations up to the best one of early stopping
#' when it is set; for gbm, the iterations `predict.gbm()` chooses when
#' `n.trees` is not given (the best on the held-out rows of a model fitted
#' with `train.fraction < 1`, else the cross-validated best of one fitted
#' with `cv.folds > 1`, else all of them), which the package's predict
#' function passes to it (so gbm's message "Using ... trees" is not
#' printed). `model_adapter(model)$iterations` gives the number used and
#' the number fitted, and printing the adapter shows them.
#'
#' A model of a modelling framework around one of these forests or
#' boosters (a parsnip `model_fit`, a workflows `workflow`, a caret `train`
#' of method `"ranger"`, `"rf"`, `"xgbTree"` or `"gbm"`, an mlr3learners
#' learner around ranger or xgboost) is profiled by the native engine of
#' the model inside, under the framework's class names in its order, with
#' the numbers of the framework's own `predict()` (checked on three
#' background rows at the start of each call). That needs the
#' preprocessing to hand the data's columns to the model as they are: a
#' formula of column names (with xgboost or lightgbm inside, and in caret,
#' of numeric columns only: their formulas build a model matrix, which
#' turns factors and logical columns into indicator columns), the
#' workflow's variables, `fit_xy()`, caret's and mlr3's data as they are, or
#' a recipe whose steps only drop columns (`step_rm()`, `step_zv()`,
#' `step_nzv()`, `step_corr()`, `step_lincomb()`, `step_filter_missing()`).
#' Where the preprocessing changes the columns (recipe steps that transform
#' or rename them, caret's `preProcess`, formula terms such as `log(x)` or
#' interactions, indicator columns, mlr3 pipelines, a workflow's
#' postprocessor, caret's `predictionBounds`), the model inside does not
#' read the data's column that a profile varies, so the framework's
#' `predict()` is used: `model_adapter(model)$inner$why` says why, and
#' `engine = "native"` is an error that says it. Of a binary booster, whose
#' one output is the probability p of one class, the framework computes
#' the other class as `1 - p`, the native engine as `1 / (1 + exp(m))` from
#' the margin m (the same to rounding: about 1e-16, or single precision
#' for xgboost).
#'
#' @section Computation:
#' The rows to predict are built by C++ code (RcppParallel workers over the
#' columns' buffers) a chunk at a time and predicted on the main R thread;
#' the chunk size follows `memory_budget`, so a table of n x grid rows that
#' would not fit in memory is never built. For tree ensembles (ranger,
#' randomForest, gbm, xgboost, lightgbm) and for fewer than 2,000 background
#' rows, each background row is repeated over the grid consecutively and
#' chunks of such rows are stacked (tree ensembles predict rows that follow
#' the same paths faster); otherwise each grid value is predicted over a block
#' of background rows whose other columns are shared, not copied, so nothing
#' is stacked at all. The option `modelprofiles.row_order` (`"auto"`,
#' `"observation"`, `"grid"`) overrides this choice; the numbers do not depend
#' on it. Grouped means, kernel weights, interval
#' assignment, differences, accumulation and centring run in C++ with
#' `threads` threads; results do not depend on the number of threads.
#'
NULL
