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
#'   `grid_points` values.
#'
#' @section Grids:
#' A numeric variable with at most `grid_points` distinct values is profiled
#' at exactly those values. Otherwise the grid is `grid_points` quantiles
#' (`variable_splits_type = "quantiles"`, type-7 quantiles at
#' `seq(0, 1, length.out = grid_points)`, duplicates dropped) or an evenly
#' spaced sequence from the minimum to the maximum (`"uniform"`), or values
#' that occur, at evenly spaced positions among the sorted distinct values
#' (`"distinct"`; see [profile_grid()]). Factors,
#' character and logical columns are profiled at the values that occur (in
#' factor-level order). Grids come from all rows of `data` (with `weights`,
#' a row of weight w counting as w rows; see the section on case weights);
#' `variable_splits` gives a grid per variable to use as it is. AL profiles
#' use Apley's edges (interval method) or an even grid over the background
#' rows (kernel method); for interval AL, `variable_splits` gives the edges
#' instead (rows outside them are left out, with a warning).
#'
#' Grids keep the type of the column. An integer column gets integer grid
#' values: its quantile grid is of type-1 quantiles (values that occur), its
#' uniform and kernel-AL grids are rounded to whole numbers (duplicates
#' dropped), and its Apley's edges are values that occur, so the predict
#' function gets an integer column (a `variable_splits` grid with fractions
#' is passed as doubles). Dates (`Date`), date-times (`POSIXct`) and time
#' differences (`difftime`) are profiled on their own scale: the grid is
#' made on their numbers (days, seconds, the column's units; type-1
#' quantiles and whole days for Dates, type-7 quantiles for the others),
#' its values are of the column's class (with its time zone or units), and
#' so are the column handed to the predict function, `$grids` and `_x_`.
#' LD kernels and intervals and AL intervals work on those numbers
#' (`bandwidth` in days, seconds or the units) and are reported on the
#' column's scale. `variable_splits` for such a column are numbers on that
#' scale or values of its class (time differences in any units). When the
#' profiled variables have different scales (numbers and Dates, say, or
#' any categorical variable), `_x_` is character (`as.character()` of the
#' values) and `$grids` keeps each variable's own class; `plot()` reads the
#' values back on their scale.
#'
#' @section Background rows:
#' Profiles average over `N` rows drawn without replacement from `data` when
#' it has more (`N = NULL` uses all rows). With `seed = NULL` the draw uses,
#' and advances, the session's random-number stream exactly as one call of
#' `sample.int()` does; with a `seed` the draw is reproducible and the
#' session's stream is restored afterwards. Nothing is drawn when all rows
#' are used.
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
#' chart. Subtract `result$mean_prediction` to get ALEPlot's values. The mean prediction
#' costs one prediction per background row, once per call.
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
#'   prediction over the rows it uses). This holds for every engine. For a
#'   categorical variable, `na_level = TRUE` makes the missing values a level
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
#' `group_bins` distinct values into `group_bins` bins at its quantiles
#' (`cut()` with `include.lowest = TRUE`), and every profile is computed within
#' each subgroup: PD and LD average over the subgroup's rows on the grid of
#' all rows, AL uses the subgroup's own edges and is centred within the
#' subgroup (on the subgroup's mean prediction). Rows with a missing group are
#' left out with a warning; subgroups smaller than `min_group_size` are left
#' out with a message. Each profile is labelled `<label>_<group>` (as DALEX
#' does) and `agr_profiles` gets a `_groups_` column.
#'
#' @section Clusters of ICE curves:
#' A partial-dependence profile averages ICE curves that may move in
#' opposite directions. With `k`, the background rows are grouped by their
#' ICE curves, over all profiled variables (and classes) together, with
#' Ward's hierarchical clustering (`stats::hclust(method = "ward.D2")`) of
#' the root-mean-square distances between curves (each curve, all variables
#' together, centred on its mean with `cluster_center = TRUE`), as
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
#' `variable_splits` or `bandwidth` to fix them. `min_group_size` and the
#' subgroups' and clusters' `sizes` count rows, not weights. The `N`
#' background rows are drawn without weights and keep theirs; rows of
#' weight 0 are left out (as they are of the grids).
#'
#' @section DALEX explainers:
#' An explainer's model, data, predict function, label and weights are used;
#' DALEX's positional call `model_profile(explainer, variables, N)` works as
#' in DALEX. With DALEX's default predict function (`DALEX::yhat`), the
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
#' evaluates in parallel over the stacked rows without building data frames.
#' For a numeric variable, each row's ICE curve over the whole grid comes
#' from one walk down each tree with the variable left free (the tree is a
#' piecewise-constant function of it), instead of one prediction per grid
#' point. Its outputs are the adapter's classes in the same order, so both
#' engines label every class alike. With `engine = "auto"` this is used when
#' the model is supported, except for the interval methods of LD and AL on
#' fewer than 20,000 background rows: they make two predictions per row,
#' which rarely repay compiling the model. The native engine does not call
#' `predict()` at all (for a large ranger forest each call costs seconds).
#' `$engine` says which engine was used.
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
#' @section Parallel and distributed prediction:
#' With a non-sequential [future::plan()] (multisession, multicore, cluster,
#' `future.batchtools`, `future.mirai`), each prediction chunk of the
#' `predict()` path is a future: the model, the predict function, the
#' distinct background rows the chunk needs and the profiled columns' values
#' travel to a worker, which stacks and predicts them; the results are
#' summed in chunk order. The chunks are the same under every plan, so the
#' numbers are identical; at most one chunk per worker is in flight, so
#' `memory_budget` holds per process. The native engine runs on `threads`
#' in this process instead. Progress is reported per chunk (also from
#' workers) through the progressr package, silently unless a handler is
#' enabled (`progressr::handlers(global = TRUE)` or
#' `progressr::with_progress()`). See `vignette("large-data")`.
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
#' @param grid_points Maximum number of grid points per numeric variable.
#' @param variable_splits_type `"quantiles"`, `"uniform"` or `"distinct"`
#'   grids (see [profile_grid()]).
#' @param variable_splits A named list of grids, used as given.
#' @param intervals Number of intervals K for the interval methods (ALEPlot's
#'   `K`). With ties, fewer intervals may result; the number used is in
#'   `$intervals`.
#' @param bandwidth `NULL` or the kernel's standard deviation (one positive
#'   number, or a vector named by profiled variables, e.g. `c(x1 = 0.1)`;
#'   a name that is not a profiled variable is an error).
#' @param label Label of the model in the result; by default the explainer's
#'   label or the model's class.
#' @param seed `NULL` or a number for a reproducible draw of the `N` rows.
#' @param threads Number of threads of the C++ loops; see
#'   [profile_threads()].
#' @param memory_budget Memory, in MiB, that a call may use beyond the data
#'   (option `modelprofiles.memory_budget`, default 256). A chunk of stacked
#'   rows takes a third of it: the rows, their predictions and the two
#'   copies a typical `predict()` makes (four for randomForest; for ranger
#'   forests, also the terminal node of each row in each tree that its
#'   `predict()` keeps), up to 65,536 stacked rows per `predict()` call.
#'   The rest is for garbage R has not yet collected and for vectors as
#'   long as the background. Under a [future::plan()] it holds per process.
#'   A chunk holds at most 2^31 - 1 stacked rows; a budget above 2^30 MiB
#'   (1 PiB), `Inf` included, counts as 2^30 MiB.
#' @param keep_ice Keep the ICE curves (`$cp_profiles`) where they are
#'   computed (PD, kernel LD and kernel AL), as long as all of them together
#'   fit in `memory_budget` (about 48 bytes per point); curves of variables
#'   that do not fit are dropped with a message.
#' @param groups `NULL`, the name of a column of `data`, or a vector with
#'   one value per row of `data`, whose values split the background rows
#'   into subgroups; profiles are then computed within each subgroup (see
#'   the section on subgroups).
#' @param group_bins Number of quantile bins for a numeric `groups` column
#'   with more distinct values than that.
#' @param group_title Name shown for a `groups` vector (not a column) in
#'   legends; default `"group"`.
#' @param al_shift For AL profiles within subgroups: `"group"` (each on its
#'   subgroup's mean prediction) or `"common"` (all on the mean prediction
#'   over the rows of all subgroups shown, DALEX's convention, so that
#'   vertical offsets between subgroups are not read as effects).
#' @param k `NULL`, or a number of clusters of ICE curves (partial
#'   dependence only): see the section on clusters.
#' @param cluster_center Cluster the ICE curves by their shape, each centred
#'   on its mean (`TRUE`, DALEX's default), or by their values (`FALSE`)?
#' @param min_group_size Subgroups with fewer background rows are left out,
#'   with a message that names them.
#' @param class For classifiers whose predict function returns a column of
#'   probabilities per class: the class (name or column number) to profile,
#'   or several; by default the second of two classes, or every class of a
#'   multiclass model (see [default_predict_function()]).
#' @param weights `NULL`, the name of a column of `data`, or a vector with one
#'   non-negative case weight per row of `data` (an explainer's `weights` by
#'   default). See the section on case weights.
#' @param level_order Order of the levels of a categorical variable in AL
#'   profiles: `"similarity"` (ALEPlot's order; see the section on AL for
#'   categorical variables) or `"levels"` (the factor's own order). Ordered
#'   factors and logical columns always keep their order.
#' @param na_level For categorical variables: treat missing values as a level
#'   of their own (see the section on missing values)?
#' @param engine How predictions are made: `"predict"` (the predict
#'   function), `"native"` (the package's compiled copy of a supported tree
#'   ensemble, evaluated in parallel C++ without building data frames, or
#'   the linear predictor of a linear model; an error when it cannot be
#'   used) or `"auto"` (the default: native when the model is supported and
#'   `predict_function` is not given, else predict). See the section on the
#'   native engine.
#' @param ... Must be empty.
#'
#' @returns An object of class `mp_profile`: a list with
#'   * `agr_profiles`: a data frame with DALEX's columns `_vname_`,
#'     `_label_`, `_x_`, `_yhat_`, `_ids_` (`_x_` is on the variables' scale:
#'     numeric (integer for integer columns), Date, POSIXct or difftime; or
#'     character when the variables' scales differ or one is categorical; see
#'     the section on grids), and `_support_`, the number of background rows
#'     (with weights, the sum of their weights) near each grid point;
#'   * `cp_profiles`: the ICE curves as a data frame with columns `_vname_`,
#'     `_label_`, `_ids_` (the row of `data`), `_x_` and `_yhat_`, or `NULL`;
#'   * `type`, `method`, `variables`, `label`, `grids` (grid or edges per
#'     variable), `intervals` (K used per variable), `bandwidth` (per
#'     variable), `N` (rows used), `rows` (which rows of `data`),
#'     `observed` (the background rows' values of the profiled variables),
#'     `labels` (one per profiled class), `class` (the profiled classes, or
#'     `NULL`), `weights` (of the background rows, or `NULL`),
#'     `engine` (`"native"` or `"predict"`, the one used),
#'     `mean_prediction` (one per class), `n_predictions` (how many predictions were made),
#'     `no_support` (grid points without support), `threads`, `call`.
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
#' al <- model_profile(fit, X, variables = "wt", type = "accumulated", intervals = 10)
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
#' model_profile(fit, X, variables = "wt", weights = w, grid_points = 5)
#' @export
model_profile <- function(x, data = NULL, predict_function = NULL,
                          variables = NULL,
                          type = c("partial", "conditional", "accumulated"),
                          N = 1000, method = NULL, grid_points = 101,
                          variable_splits_type = c("quantiles", "uniform", "distinct"),
                          variable_splits = NULL, intervals = 40,
                          bandwidth = NULL, label = NULL, seed = NULL,
                          threads = NULL,
                          memory_budget = getOption("modelprofiles.memory_budget", 256),
                          keep_ice = TRUE, groups = NULL, group_bins = 3,
                          min_group_size = 10, group_title = NULL,
                          al_shift = c("group", "common"), k = NULL, cluster_center = TRUE, class = NULL, weights = NULL,
                          level_order = c("similarity", "levels"), na_level = FALSE,
                          engine = c("auto", "native", "predict"), ...) {
  call <- match.call()
  env <- environment()
  if (...length() > 0L) {
    cli::cli_abort(c(
      "Unknown argument{?s}: {.arg {names(list(...))}}.",
      i = "See {.help modelprofiles::model_profile} for the arguments."
    ), call = env)
  }
  if (missing(x)) cli::cli_abort("{.arg x} is missing: give a fitted model or an explainer.", call = env)
  # DALEX's positional order: model_profile(explainer, variables, N).
  if (is_explainer(x) && is.character(data)) {
    if (is.null(variables)) variables <- data
    data <- NULL
    if (is.numeric(predict_function) && missing(N)) N <- predict_function
    if (is.numeric(predict_function)) predict_function <- NULL
  }
  if (identical(tolower(type[1L]), "ale")) {
    cli::cli_abort(c("{.arg type} must be one of {.val partial}, {.val conditional} or {.val accumulated}, not {.val {type}}.",
                     i = "ALE profiles are {.code type = \"accumulated\"}."), call = env)
  }
  close_cache <- native_cache_scope()
  on.exit(close_cache(), add = TRUE)
  type <- rlang::arg_match(type, error_call = env)
  variable_splits_type <- rlang::arg_match(variable_splits_type, error_call = env)
  level_order <- rlang::arg_match(level_order, error_call = env)
  al_shift <- rlang::arg_match(al_shift, error_call = env)
  engine <- rlang::arg_match(engine, error_call = env)
  if (!is.null(k)) {
    k <- check_whole(k, "k", 2, env)
    if (type != "partial") {
      cli::cli_abort("{.arg k} clusters ICE curves, which partial-dependence profiles have; use {.code type = \"partial\"}.", call = env)
    }
    keep_ice <- TRUE
  }
  if (!isTRUE(na_level) && !isFALSE(na_level)) {
    cli::cli_abort("{.arg na_level} must be {.code TRUE} or {.code FALSE}.", call = env)
  }

  inputs <- resolve_inputs(x, data, predict_function, label, env)
  model <- inputs$model
  data <- inputs$data
  predict_function <- inputs$predict_function
  label <- inputs$label
  weights <- resolve_weights(weights, x, data, env)

  # Scalar settings.
  if (!is.null(N)) N <- check_whole(N, "N", 1, env, hint = "Use {.code N = NULL} for all rows.")
  grid_points <- check_whole(grid_points, "grid_points", 2, env)
  intervals <- check_whole(intervals, "intervals", 1, env)
  threads <- resolve_threads(threads, env)
  memory_budget <- check_budget(memory_budget, env)
  method <- resolve_method(type, method, env)

  # Variables.
  explicit <- !is.null(variables)
  if (!explicit) variables <- names(data)
  variables <- check_variables(variables, data, env)
  if (!is.null(groups)) {
    if (!is.null(k)) {
      cli::cli_abort("Give {.arg groups} or {.arg k}, not both.", call = env)
    }
    if (is.character(groups) && length(groups) == 1L && groups %in% names(data)) {
      if (!explicit) variables <- setdiff(variables, groups)
    } else if (is.atomic(groups) && length(groups) == nrow(data) && nrow(data) > 1L) {
      groups <- structure(list(groups), names = group_title %||% "group")
    } else {
      cli::cli_abort(c(
        "{.arg groups} must be the name of a column of {.arg data}, or a vector with one value per row of {.arg data}.",
        i = "{.arg data} has {nrow(data)} rows."
      ), call = env)
    }
  }
  if (!explicit && is.character(attr(weights, "column"))) {
    variables <- setdiff(variables, attr(weights, "column"))
  }
  variables <- usable_variables(data, variables, type, explicit, env, names(variable_splits))
  variable_splits <- check_splits(variable_splits, data, variables, env, na_level)
  bandwidth <- check_bandwidth(bandwidth, variables, env)

  # Background rows.
  rows <- weighted_rows(sample_rows(nrow(data), N, seed), weights, env)
  if (!is.null(groups)) {
    return(grouped_profile(
      inputs, data, rows, groups, group_bins, min_group_size, variables,
      type = type, method = method, grid_points = grid_points,
      variable_splits_type = variable_splits_type, variable_splits = variable_splits,
      intervals = intervals, bandwidth = bandwidth, threads = threads,
      memory_budget = memory_budget, keep_ice = keep_ice, class = class,
      weights = weights, level_order = level_order, na_level = na_level,
      al_shift = al_shift, k = k, engine = engine, call = call, env = env
    ))
  }
  background <- background_rows(data, rows)
  w <- if (is.null(weights)) rep(1, length(rows)) else as.double(weights[rows])
  # The interval methods make two predictions per row and variable, which
  # rarely repay compiling a model; "auto" keeps predict() for them unless the
  # background is large.
  if (engine == "auto" && type != "partial" && method == "interval" && length(rows) < 20000) {
    engine <- "predict"
  }
  ctx <- new_context(model, predict_function, unclass_frame(background), rows,
                     w, threads, memory_budget, class = class, call = env, engine = engine,
                     linear = type == "partial", adapter = inputs$adapter)
  labels <- output_labels(ctx, label)
  ctx$na_level <- na_level
  ctx$progress <- new_progress(length(variables))

  budget_bytes <- memory_budget * 2^20
  ice_used <- 0
  agr <- vector("list", length(variables))
  cp <- list()
  grids <- intervals_used <- bw_used <- no_support <- list()
  # Each variable's profile is a task (its chunks of predictions and what is
  # made of them); under a future plan their chunks are one stream
  # (run_tasks()). start() checks a variable and sets its profile up, done()
  # keeps the result, in the order of the variables.
  start <- function(i) {
    v <- variables[i]
    j <- match(v, names(data))
    col <- data[[v]]
    kind <- column_kind(col)
    n_na <- sum(is.na(background[[v]]))
    if (n_na > 0L && type != "partial" && !(na_level && kind == "categorical")) {
      warn_left_out(v, n_na, length(rows), kind, env)
    }
    if (!varies(background[[v]]) && type != "partial") {
      cli::cli_abort("{.field {v}} takes a single value among the background rows; its profile is not defined.", call = env)
    }
    grid <- variable_splits[[v]]
    # AL profiles use Apley's edges or their own even grid.
    # (Grids from all rows of data, a row of weight w counting as w rows.)
    if (is.null(grid) && type != "accumulated") grid <- make_grid(col, grid_points, variable_splits_type, na_level, weights)
    # ICE curves are kept while all of them together (about 48 bytes per
    # point: the table and its data-frame form) fit in the memory budget.
    ice_bytes <- as.double(if (is.null(grid)) grid_points else length(grid)) * length(rows) * 48
    keep <- keep_ice && ice_used + ice_bytes <= budget_bytes
    if (keep) {
      ice_used <<- ice_used + ice_bytes
    } else if (keep_ice && type == "partial") {
      cli::cli_inform(c(
        "ICE curves of {.field {v}} not kept: with the others they would exceed {.arg memory_budget} ({memory_budget} MiB).",
        i = "Raise {.arg memory_budget}, lower {.arg N}, or set {.code keep_ice = FALSE} to silence this."
      ))
    }
    bw <- NULL
    if (kind == "numeric" && method == "kernel") {
      bw <- bandwidth[[v]] %||% weighted_bw_nrd0(background[[v]], w)
      bw_used[[v]] <<- bw
    }
    switch(
      type,
      partial = profile_partial(ctx, j, grid, keep),
      conditional = if (kind == "categorical") {
        profile_local_levels(ctx, j, grid)
      } else if (method == "kernel") {
        profile_local_kernel(ctx, j, grid, bw, keep)
      } else {
        profile_local_interval(ctx, j, grid, intervals)
      },
      accumulated = if (kind == "categorical") {
        profile_accumulated_levels(ctx, j, al_level_order(ctx, j, level_order))
      } else if (method == "interval") {
        profile_accumulated_interval(ctx, j, intervals, edges = grid, call = env)
      } else {
        profile_accumulated_kernel(ctx, j, grid_points, bw, keep)
      }
    )
  }
  done <- function(i, res) {
    v <- variables[i]
    if (any(res$no_support)) {
      bad <- res$x[res$no_support]
      cli::cli_warn(c(
        "{.field {v}}: {length(bad)} grid point{?s} without background rows nearby; {?its/their} local dependence is {.val {NA}}.",
        i = "Grid point{?s}: {.val {format(bad, digits = 4)}}."
      ), call = env)
      no_support[[v]] <<- bad
    }
    if (!is.null(res$intervals)) intervals_used[[v]] <<- res$intervals
    grids[[v]] <<- res$x
    agr[[i]] <<- list(v = v, x = res$x, yhat = res$yhat,
                                       support = grid_support(background[[v]], res$x, if (!is.null(weights)) w))
    if (!is.null(res$ice)) {
      G <- length(res$x)
      cp[[v]] <<- do.call(rbind, lapply(seq_along(labels), function(c) {
        data.frame(
          `_vname_` = v, `_label_` = labels[c],
          `_ids_` = rep(rows[res$ice_rows], each = G),
          `_x_` = rep(res$x, times = length(res$ice_rows)),
          `_yhat_` = as.vector(res$ice[, , c]),
          check.names = FALSE, stringsAsFactors = FALSE
        )
      }))
    }
  }
  run_tasks(ctx, length(variables), start, done)
  mixed <- mixed_scales(lapply(agr, `[[`, "x"))
  agr_df <- do.call(rbind, lapply(agr, function(a) {
    data.frame(
      `_vname_` = a$v, `_label_` = rep(labels, each = length(a$x)),
      `_x_` = rep(if (mixed) as.character(a$x) else a$x, length(labels)),
      `_yhat_` = as.vector(a$yhat), `_ids_` = 0L,
      `_support_` = rep(a$support, length(labels)),
      check.names = FALSE, stringsAsFactors = FALSE
    )
  }))
  cp_df <- if (length(cp)) {
    if (mixed) cp <- lapply(cp, function(d) { d$`_x_` <- as.character(d$`_x_`); d })
    out <- do.call(rbind, unname(cp))
    rownames(out) <- NULL
    out
  }
  rownames(agr_df) <- NULL
  result <- structure(
    list(
      agr_profiles = agr_df,
      cp_profiles = cp_df,
      type = type,
      method = method,
      variables = variables,
      label = label,
      labels = labels,
      label_parts = data.frame(
        label = labels, group = NA_character_,
        class = if (isTRUE(ctx$outputs$suffix)) ctx$outputs$classes else NA_character_,
        stringsAsFactors = FALSE
      ),
      grids = grids,
      intervals = unlist(intervals_used),
      bandwidth = unlist(bw_used),
      N = length(rows),
      n_data = nrow(data),
      rows = rows,
      observed = background[variables],
      seed = seed,
      mean_prediction = if (!is.null(ctx$mean_prediction)) stats::setNames(ctx$mean_prediction, ctx$outputs$classes),
      class = ctx$outputs$classes,
      weights = if (!is.null(weights)) w,
      n_predictions = ctx$n_predictions,
      no_support = no_support,
      threads = threads,
      memory_budget = memory_budget,
      engine = ctx$engine,
      call = call
    ),
    class = "mp_profile"
  )
  if (!is.null(k)) result <- cluster_ice(result, k, cluster_center, env)
  result
}

`%||%` <- function(a, b) if (is.null(a)) b else a

# Labels of the profiled outputs: the label, or `<label>.<class>` per class
# of a multiclass model (or when several classes are chosen).
output_labels <- function(ctx, label) {
  if (isTRUE(ctx$outputs$suffix)) paste0(label, ".", ctx$outputs$classes) else label
}

# Case weights: NULL, a column of data (by name), or one number per row of
# data; from an explainer's weights when not given.
resolve_weights <- function(weights, x, data, call) {
  if (is.null(weights) && is_explainer(x)) weights <- x$weights
  if (is.null(weights)) return(NULL)
  column <- NULL
  if (is.character(weights) && length(weights) == 1L) {
    if (!weights %in% names(data)) {
      cli::cli_abort("{.arg weights} names a column not in the data: {.val {weights}}.", call = call)
    }
    column <- weights
    weights <- data[[column]]
  }
  what <- if (is.null(column)) "{.arg weights}" else "The weights column {.field {column}}"
  of_what <- if (is.null(column)) "{.arg weights}" else "the weights column {.field {column}}"
  if (!is.numeric(weights) || is.factor(weights)) {
    cli::cli_abort(paste(what, "must be numeric, not {.cls {class(weights)}}."), call = call)
  }
  if (length(weights) != nrow(data)) {
    cli::cli_abort(paste(what, "has {length(weights)} value{?s}; the data has {nrow(data)} row{?s}."), call = call)
  }
  if (anyNA(weights) || any(!is.finite(weights)) || any(weights < 0)) {
    cli::cli_abort(paste(what, "must be finite, non-negative and not {.val {NA}}."), call = call)
  }
  # Weighted means divide by the sum: it must be a finite number.
  if (!is.finite(sum(as.double(weights)))) {
    cli::cli_abort(c(
      paste("The sum of", of_what, "is more than the largest number R can hold ({.val {(.Machine$double.xmax)}})."),
      i = "Divide them by a constant (say, their largest value): profiles depend only on the ratios of the weights."
    ), call = call)
  }
  weights <- as.double(weights)
  attr(weights, "column") <- column
  weights
}

# Background rows with positive weight (a row of weight 0 is as absent).
weighted_rows <- function(rows, weights, call) {
  if (is.null(weights)) return(rows)
  rows <- rows[weights[rows] > 0]
  if (length(rows) < 2L) {
    cli::cli_abort("Fewer than 2 background rows have a positive weight.", call = call)
  }
  rows
}

# Model, data, predict function, adapter and label, from an explainer or the
# arguments. The predict function is the adapter's own (which the native and
# linear engines may stand in for) when none is given, or when an
# explainer's is DALEX's default (DALEX::yhat), which gives the same numbers
# for the families the package knows; a function the user wrote is used as
# it is (an explainer's gets the rows as a matrix when its data is one).
resolve_inputs <- function(x, data, predict_function, label, call) {
  model <- x
  given <- predict_function
  as_matrix <- FALSE
  if (is_explainer(x)) {
    model <- x$model
    if (is.null(data)) data <- x$data
    # An explainer's predict function gets rows in the class of its data.
    as_matrix <- is.matrix(x$data)
    if (is.null(given) && !is_dalex_default(x$predict_function)) given <- x$predict_function
    if (is.null(label)) label <- x$label
  }
  if (is.null(data)) {
    cli::cli_abort("{.arg data} is missing: give the background rows as a data frame.", call = call)
  }
  data <- as_background(data, call = call)
  adapter <- model_adapter(model)
  if (is.null(given)) {
    if (!is.null(adapter$refuse)) cli::cli_abort(adapter$refuse, call = call)
    predict_function <- adapter$predict
  } else if (is_default_predictor(given)) {
    predict_function <- given
  } else {
    predict_function <- user_predictor(given, as_matrix, call)
  }
  if (is.null(label)) label <- adapter$family
  if (!is.character(label) || length(label) != 1L || is.na(label)) {
    cli::cli_abort("{.arg label} must be a single string.", call = call)
  }
  list(model = model, data = data, predict_function = predict_function, label = label,
       adapter = adapter)
}

# Variable names: a character vector of columns of data, without duplicates.
check_variables <- function(variables, data, call) {
  if (!is.character(variables) || anyNA(variables) || length(variables) == 0L) {
    cli::cli_abort("{.arg variables} must be a character vector of column names.", call = call)
  }
  unknown <- setdiff(variables, names(data))
  if (length(unknown)) {
    cli::cli_abort(c(
      "{.arg variables} has {cli::qty(length(unknown))}name{?s} not in the data: {.val {unknown}}.",
      i = "The data has {.val {names(data)}}."
    ), call = call)
  }
  unique(variables)
}

# The memory budget in MiB. A budget above max_memory_budget (Inf, or one
# whose bytes overflow) is taken as max_memory_budget: more than any machine
# has, and more than a chunk can use (new_context() caps a chunk at
# .Machine$integer.max stacked rows).
check_budget <- function(memory_budget, call) {
  if (!is.numeric(memory_budget) || length(memory_budget) != 1L ||
      is.na(memory_budget) || memory_budget <= 0) {
    cli::cli_abort("{.arg memory_budget} must be a positive number of MiB, not {.val {format_value(memory_budget)}}.", call = call)
  }
  min(as.double(memory_budget), max_memory_budget)
}

# The largest memory budget used, in MiB (1 PiB).
max_memory_budget <- 2^30

# Rows with a missing value in the variable profiled by LD or AL are left
# out of its profile (PD sets the column, and uses them): one warning per
# variable and call, saying how many and what to do instead. An error when
# no row is left.
warn_left_out <- function(v, n_na, n, kind, call) {
  hint <- if (kind == "categorical") {
    "Set {.code na_level = TRUE} to profile the missing values as a level of their own, or impute them."
  } else {
    "Impute them to keep {cli::qty(n_na)}{?that row/those rows}; a PD profile ({.code type = \"partial\"}) uses every row."
  }
  if (n_na >= n) {
    cli::cli_abort(c(
      "{.field {v}} has only missing values among the {n} background rows; its LD or AL profile is not defined.",
      i = hint
    ), call = call)
  }
  cli::cli_warn(c(
    "{.field {v}} has {n_na} missing value{?s} among the {n} background rows; {cli::qty(n_na)}{?that row is/those rows are} left out of its profile.",
    i = hint
  ), call = call, class = "modelprofiles_rows_left_out")
}

# Does a column take at least two distinct non-missing values?
varies <- function(x) {
  if (is.factor(x)) x <- as.integer(x)
  # Numbers: the smallest and largest observed values differ (no copy).
  if (is.numeric(x) || is.logical(x)) {
    if (anyNA(x) && all(is.na(x))) return(FALSE)
    return(min(x, na.rm = TRUE) != max(x, na.rm = TRUE))
  }
  x <- x[!is.na(x)]
  length(x) > 1L && any(x != x[1L])
}

resolve_method <- function(type, method, call) {
  if (type == "partial") {
    if (!is.null(method) && !identical(method, "exact")) {
      cli::cli_abort("{.arg method} applies to conditional and accumulated profiles, not partial dependence.", call = call)
    }
    return("exact")
  }
  if (is.null(method)) return(if (type == "conditional") "kernel" else "interval")
  if (!is.character(method) || length(method) != 1L || !method %in% c("kernel", "interval")) {
    cli::cli_abort("{.arg method} must be {.val kernel} or {.val interval}, not {.val {format(method)}}.", call = call)
  }
  method
}

as_background <- function(data, call) {
  if (is.matrix(data)) {
    if (is.null(colnames(data))) {
      cli::cli_abort("{.arg data} is a matrix without column names; name its columns.", call = call)
    }
    data <- as.data.frame(data, stringsAsFactors = FALSE)
  }
  if (!is.data.frame(data)) {
    cli::cli_abort("{.arg data} must be a data frame or a matrix, not {.cls {class(data)}}.", call = call)
  }
  if (nrow(data) < 2L) {
    cli::cli_abort("{.arg data} has {nrow(data)} row{?s}; profiles need at least 2 background rows.", call = call)
  }
  if (anyDuplicated(names(data)) || any(!nzchar(names(data)))) {
    cli::cli_abort("The columns of {.arg data} must have unique, non-empty names.", call = call)
  }
  ok <- vapply(data, function(col) typeof(col) %in% c("double", "integer", "logical", "character"), logical(1))
  if (!all(ok)) {
    cli::cli_abort(c(
      "{.arg data} has column{?s} of a type that cannot be stacked: {.field {names(data)[!ok]}}.",
      i = "Columns must be numeric, integer, factor, character or logical."
    ), call = call)
  }
  data
}

# A data frame as a plain list of columns, for the C++ side.
unclass_frame <- function(df) {
  out <- unclass(df)
  attr(out, "row.names") <- NULL
  out
}

usable_variables <- function(data, variables, type, explicit, call, given_grids = character()) {
  keep <- logical(length(variables))
  for (i in seq_along(variables)) {
    v <- variables[i]
    col <- data[[v]]
    kind <- column_kind(col)
    problem <- hint <- NULL
    n_inf <- if (kind == "numeric") n_infinite(col) else 0
    if (kind == "unsupported") {
      problem <- "is of class {.cls {class(col)}}; profiles need a numeric, factor, character or logical column"
    } else if (anyNA(col) && all(is.na(col))) {
      problem <- "has only missing values"
    } else if (n_inf > 0) {
      problem <- "has {n_inf} infinite value{?s} ({.val {Inf}} or {.val {-Inf}}); profiles need finite values"
      hint <- infinite_hint
    } else if (!varies(col) && !(type == "partial" && v %in% given_grids)) {
      # (A PD profile over a given grid does not need the rows to vary.)
      problem <- "is constant; a profile over a single value is not defined"
    }
    if (is.null(problem)) {
      keep[i] <- TRUE
    } else if (explicit) {
      cli::cli_abort(c(paste0("{.field {v}} ", problem, "."), i = hint), call = call)
    } else {
      cli::cli_inform(c(paste0("Skipping {.field {v}}: it ", problem, "."), i = hint))
    }
  }
  if (!any(keep)) cli::cli_abort("No column of {.arg data} can be profiled.", call = call)
  variables[keep]
}

# The number of infinite values of a numeric column (no copy of the column
# when it has none).
n_infinite <- function(x) {
  if (!is.double(x)) return(0L)
  r <- suppressWarnings(range(x, na.rm = TRUE))
  if (all(is.finite(r))) return(0L)
  sum(is.infinite(x))
}

# The variables without infinite values (h_statistic(), which has no other
# requirement on them): a variable with some is an error when the user
# named it, else left out with a message (as usable_variables() does).
finite_variables <- function(data, variables, explicit, call) {
  keep <- vapply(variables, function(v) {
    n_inf <- if (column_kind(data[[v]]) == "numeric") n_infinite(data[[v]]) else 0
    if (n_inf == 0) return(TRUE)
    msg <- "has {n_inf} infinite value{?s} ({.val {Inf}} or {.val {-Inf}}); the statistics need finite values."
    hint <- "Drop those rows, or set them to {.val {NA}} (a value of its own here, which the model must predict)."
    if (explicit) cli::cli_abort(c(paste("{.field {v}}", msg), i = hint), call = call)
    cli::cli_inform(c(paste("Skipping {.field {v}}: it", msg), i = hint))
    FALSE
  }, logical(1))
  variables[keep]
}

infinite_hint <- "Set them to {.val {NA}} (PD profiles use such rows; LD and AL profiles leave them out), or drop those rows."

check_splits <- function(splits, data, variables, call, na_level = FALSE) {
  if (is.null(splits)) return(list())
  if (!is.list(splits) || is.null(names(splits)) || any(!nzchar(names(splits)))) {
    cli::cli_abort("{.arg variable_splits} must be a named list of grids.", call = call)
  }
  bad <- setdiff(names(splits), variables)
  if (length(bad)) {
    cli::cli_abort("{.arg variable_splits} names variable{?s} not profiled: {.val {bad}}.", call = call)
  }
  for (v in names(splits)) {
    s <- splits[[v]]
    col <- data[[v]]
    # NA is a grid value only for the missing level of a categorical variable.
    na_ok <- na_level && column_kind(col) == "categorical"
    if (length(s) == 0L || (anyNA(s) && !na_ok)) {
      cli::cli_abort("{.arg variable_splits${v}} must be values without {.val {NA}}.", call = call)
    }
    if (column_kind(col) == "numeric") {
      if (!same_scale(col, s)) {
        cli::cli_abort("{.arg variable_splits${v}} must be numeric{if (is_time_scale(col)) paste0(' or of class <', class(col)[1L], '>')}, as {.field {v}} is; not {.cls {class(s)}}.", call = call)
      }
      splits[[v]] <- column_values(col, s)
    } else {
      allowed <- if (is.factor(col)) levels(col) else unique(as.character(stats::na.omit(col)))
      if (is.logical(col)) allowed <- c("FALSE", "TRUE")
      odd <- setdiff(as.character(s[!is.na(s)]), allowed)
      if (length(odd)) {
        cli::cli_abort("{.arg variable_splits${v}} has value{?s} that {.field {v}} cannot take: {.val {odd}}.", call = call)
      }
      if (is.logical(col)) s <- as.logical(s) else s <- as.character(s)
      splits[[v]] <- s
    }
  }
  splits
}

# Bandwidths: one for every variable, or named by (profiled) variable.
check_bandwidth <- function(bandwidth, variables, call) {
  if (is.null(bandwidth)) return(list())
  if (!is.numeric(bandwidth) || length(bandwidth) == 0L || anyNA(bandwidth) ||
      any(!is.finite(bandwidth)) || any(bandwidth <= 0)) {
    cli::cli_abort("{.arg bandwidth} must be positive finite numbers.", call = call)
  }
  bandwidth <- stats::setNames(as.double(bandwidth), names(bandwidth))
  if (is.null(names(bandwidth))) {
    if (length(bandwidth) != 1L) {
      cli::cli_abort("{.arg bandwidth} must be one number or a vector named by variable.", call = call)
    }
    return(stats::setNames(as.list(rep(bandwidth, length(variables))), variables))
  }
  nm <- names(bandwidth)
  if (anyNA(nm) || any(!nzchar(nm)) || anyDuplicated(nm)) {
    cli::cli_abort("{.arg bandwidth} must be one number or a vector named by variable, each name once.", call = call)
  }
  unknown <- setdiff(nm, variables)
  if (length(unknown)) {
    cli::cli_abort(c(
      "{.arg bandwidth} names {cli::qty(length(unknown))}variable{?s} not profiled: {.val {unknown}}.",
      i = "The profiled variables are {.val {variables}}; names must match exactly (case included)."
    ), call = call)
  }
  as.list(bandwidth)
}
