# Converters of boosted tree ensembles (gbm, xgboost) into the native
# engine's `mp_native` (new_native(), R/native.R): NULL when the model uses
# something the format cannot express exactly (predict() is then used).

# gbm ---------------------------------------------------------------------

# gbm (tested with 2.1.8.1). The model's own prediction (gbm_pred in gbm's
# gbmentry.cpp) walks each tree from node 0:
#   * a missing value (R's NA) goes to the MissingNode;
#   * a numeric or ordered variable (var.type 0) goes left when x < split,
#     else right (a value equal to the split goes right);
#   * a nominal variable (var.type = number of levels) looks up
#     c.splits[[split + 1]][code + 1] (code 0-based): -1 left, 1 right,
#     0 (not written by gbm 2.1.x) the MissingNode.
# The prediction is initF plus the sum of the leaf values (the SplitCodePred
# of a leaf) over the trees of the first iterations; trees are stored
# iteration by iteration, one per class within an iteration (multinomial).
# The iterations are those predict.gbm() uses by default
# (gbm_predict_trees()), as the gbm adapter's predict function does.
# predict.gbm codes factors by level name against var.levels (the levels
# present in training, in order), so a level unknown to the model becomes NA
# and takes the MissingNode, as the format's unknown level -> NaN does.
# Ordered factors are coded 0..K-1 and split numerically; the format codes
# them 1..K, so their thresholds are shifted by one (exact: small integers
# plus .5).

#' @exportS3Method native_model gbm
native_model.gbm <- function(model, fingerprint = NULL) {
  dist <- model$distribution$name
  if (!is.character(dist) || length(dist) != 1L) return(NULL)
  transform <- gbm_transform(dist)
  if (is.null(transform)) return(NULL)
  # adaboost: 1 / (1 + exp(-2 f)); doubling every term is exact.
  scale <- if (identical(dist, "adaboost")) 2 else 1
  vars <- gbm_variables(model)
  if (is.null(vars)) return(NULL)
  classes <- gbm_classes(model, dist)
  if (is.null(classes)) return(NULL)
  # The trees predict() uses: those of the first gbm_predict_trees() iterations.
  n_trees <- gbm_predict_trees(model) * classes$n
  if (is.na(n_trees) || length(model$trees) < n_trees) return(NULL)
  trees <- model$trees[seq_len(n_trees)]
  nominal <- vars$var_type > 0L
  ordered <- !nominal & vapply(vars$var_levels, is.character, logical(1))
  feature_levels <- lapply(seq_along(nominal), function(j) {
    if (nominal[j] || ordered[j]) as.character(vars$var_levels[[j]])
  })
  nodes <- gbm_nodes(trees, length(vars$features), nominal, ordered)
  if (is.null(nodes)) return(NULL)
  cats <- gbm_categorical(model$c.splits, nodes, nominal)
  if (is.null(cats)) return(NULL)
  new_native(
    features = vars$features, feature_levels = feature_levels, tree_start = nodes$tree_start,
    feature = nodes$feature, threshold = nodes$threshold, left = nodes$left,
    right = nodes$right, missing = nodes$missing, cat_start = cats$cat_start,
    cat_len = cats$cat_len, cat_left = cats$cat_left, rule = 1L,
    value = gbm_leaf_values(nodes, length(trees), classes$n, scale), aggregate = "sum",
    base = rep(scale * as.double(model$initF[1L]), classes$n), transform = transform,
    outputs = classes$names, source = "gbm"
  )
}

# The scale of predict(type = "response") in predict.gbm (NULL: not supported).
gbm_transform <- function(dist) {
  switch(dist,
    gaussian = , laplace = , tdist = , quantile = , huberized = ,
    coxph = "identity",
    bernoulli = , pairwise = , adaboost = "logistic",
    poisson = "exp",
    multinomial = "softmax",
    NULL
  )
}

# The model's variables: the data columns they name, their gbm types and
# levels; NULL when malformed or when a term is computed from the data.
gbm_variables <- function(model) {
  features <- as.character(model$var.names)
  p <- length(features)
  var_type <- as.integer(model$var.type)
  var_levels <- model$var.levels
  if (p == 0L || length(var_type) != p || length(var_levels) != p ||
      anyNA(features) || anyDuplicated(features)) {
    return(NULL)
  }
  # predict.gbm() evaluates the terms of a formula model in the data: a
  # plain variable (backquoted when not syntactic) names a data column; a
  # term computed from the data (log(x), I(x^2)) is not supported.
  if (!is.null(model$Terms)) {
    features <- vapply(features, term_column, character(1), USE.NAMES = FALSE)
    if (anyNA(features) || anyDuplicated(features)) return(NULL)
  }
  list(features = features, var_type = var_type, var_levels = var_levels)
}

# The number of outputs (classes of a multinomial model) and their names
# (NULL for one output), or NULL when inconsistent.
gbm_classes <- function(model, dist) {
  n_classes <- as.integer(model$num.classes %||% 1L)
  multi <- identical(dist, "multinomial")
  classes <- if (multi) as.character(model$classes)
  if (if (multi) length(classes) != n_classes else n_classes != 1L) return(NULL)
  list(n = n_classes, names = classes)
}

# The iterations predict.gbm() uses when n.trees is not given (gbm 2.1.8.1,
# which says "Using <n> trees..."): the best on the held-out rows of a model
# fitted with train.fraction < 1 (gbm.perf(method = "test")), else the
# cross-validated best of a model fitted with cv.folds > 1 (gbm.perf(method
# = "cv")), else every iteration (length(train.error)); at most n.trees. The
# same calls as predict.gbm() (gbm.perf() plots nothing with plot.it =
# FALSE and prints nothing). NA when the model does not tell.
gbm_predict_trees <- function(model) {
  fitted <- suppressWarnings(as.integer(model$n.trees))
  if (length(fitted) != 1L || is.na(fitted) || fitted < 1L) return(NA_integer_)
  n <- tryCatch({
    if (isTRUE(model$train.fraction < 1)) {
      gbm::gbm.perf(model, method = "test", plot.it = FALSE)
    } else if (!is.null(model$cv.error)) {
      gbm::gbm.perf(model, method = "cv", plot.it = FALSE)
    } else {
      length(model$train.error)
    }
  }, error = function(e) NA_integer_)
  n <- suppressWarnings(as.integer(n))
  if (length(n) != 1L || is.na(n) || n < 1L) return(NA_integer_)
  min(n, fitted)
}

# The trees' nodes with global indices (gbm's per tree: SplitVar, SplitCodePred,
# LeftNode, RightNode, MissingNode), numeric thresholds (ordered factors
# shifted to the format's codes 1..K), or NULL when malformed.
gbm_nodes <- function(trees, p, nominal, ordered) {
  cols <- lapply(1:5, function(k) unlist(lapply(trees, `[[`, k), use.names = FALSE))
  split_var <- as.integer(cols[[1L]])
  split_code <- as.double(cols[[2L]])
  sizes <- lengths(lapply(trees, `[[`, 1L))
  n_nodes <- length(split_var)
  if (any(sizes < 1L) || any(lengths(cols) != n_nodes)) return(NULL)
  tree_start <- as.integer(cumsum(c(0, sizes)))
  offset <- rep(tree_start[-length(tree_start)], sizes)
  inner <- split_var >= 0L
  if (any(split_var[inner] >= p)) return(NULL)
  var <- pmax(split_var, 0L) + 1L # 1-based variable of a split (1 at leaves)
  globalise <- function(i) as.integer(ifelse(inner & i >= 0L, i + offset, -1L))
  left <- globalise(as.integer(cols[[3L]]))
  right <- globalise(as.integer(cols[[4L]]))
  missing <- globalise(as.integer(cols[[5L]]))
  if (any(left[inner] < 0L | right[inner] < 0L)) return(NULL)
  threshold <- numeric(n_nodes)
  num <- inner & !nominal[var]
  threshold[num] <- split_code[num] + ifelse(ordered[var[num]], 1, 0)
  split_var[!inner] <- -1L
  list(tree_start = tree_start, sizes = sizes, feature = split_var, threshold = threshold,
       left = left, right = right, missing = missing, split_code = split_code,
       inner = inner, var = var)
}

# The categorical tables of the splits on nominal variables (c.splits:
# -1 left, 1 right per level code), or NULL when a level would go to the
# MissingNode (0), which the format cannot say.
gbm_categorical <- function(c_splits, nodes, nominal) {
  n_nodes <- length(nodes$feature)
  cat_start <- rep(-1L, n_nodes)
  cat_len <- rep(0L, n_nodes)
  cat_left <- integer()
  cat_nodes <- which(nodes$inner & nominal[nodes$var])
  if (length(cat_nodes)) {
    idx <- nodes$split_code[cat_nodes] + 1
    if (any(idx != round(idx)) || any(idx < 1) || any(idx > length(c_splits))) return(NULL)
    codes <- lapply(c_splits[idx], as.integer)
    flat <- unlist(codes, use.names = FALSE)
    if (!all(flat %in% c(-1L, 1L))) return(NULL)
    cat_len[cat_nodes] <- lengths(codes)
    cat_start[cat_nodes] <- as.integer(cumsum(c(0L, lengths(codes)))[seq_along(codes)])
    cat_left <- as.integer(flat == -1L)
  }
  list(cat_start = cat_start, cat_len = cat_len, cat_left = cat_left)
}

# The leaf values (SplitCodePred at leaves, times `scale`), each tree's in
# the column of its class.
gbm_leaf_values <- function(nodes, n_trees, n_classes, scale) {
  leaf <- !nodes$inner
  value <- matrix(0, length(nodes$feature), n_classes)
  tree_class <- rep((seq_len(n_trees) - 1L) %% n_classes + 1L, nodes$sizes)
  value[cbind(which(leaf), tree_class[leaf])] <- scale * nodes$split_code[leaf]
  value
}

# xgboost -------------------------------------------------------------------

# xgboost (tested with 1.7.8.1), tree boosters ("gbtree"; not "dart", whose
# trees carry weights, nor "gblinear"). The booster is read from its UBJSON
# serialisation (xgb.save.raw(raw_format = "ubj")), which holds its
# settings and, per tree, node arrays indexed by node id: left_children,
# right_children (-1 at a leaf), split_indices (the feature, 0-based),
# split_conditions (the threshold as a float; at a leaf, the leaf value),
# default_left (where a missing value goes), split_type; tree_info gives a
# tree's output group. xgboost stores the data as float and compares x <
# threshold in float; the leaf values are floats summed (in float) onto the
# base margin, then transformed. Thresholds and leaf values are the floats
# themselves (so float32 = TRUE only needs the data cast: the native walk
# goes left when (float) x < threshold, x rounded to nearest as xgboost's
# R interface stores a double in its float matrix). The "splits" grid puts
# each threshold's point at the first double that rounds to it
# (split_grid(), native_splits()).
# The base margin is the objective's transform of base_score (from the
# booster's settings): logit for binary:logistic and reg:logistic, log
# for count:poisson, reg:gamma and reg:tweedie, base_score itself otherwise
# (binary:logitraw included, as predict() shows).
# Tree t (0-based) belongs to output group tree_info[t] ((t %/%
# num_parallel_tree) %% n_groups); predict() uses the first best_iteration
# iterations when early stopping set one.
# Not supported (NULL): dart and gblinear boosters, objectives whose
# prediction is not a transform of the margin (multi:softmax, binary:hinge,
# ranking, survival), categorical splits, and boosters without feature names
# (predict() then reads the columns by position).
# The serialisation is read in C++ (xgb_read(),
# inst/include/modelprofiles/xgboost.h): the fingerprint's, when given.

#' @exportS3Method native_model xgb.Booster
native_model.xgb.Booster <- function(model, fingerprint = NULL) {
  if (!requireNamespace("xgboost", quietly = TRUE)) return(NULL)
  ubj <- if (is.list(fingerprint)) fingerprint$ubj
  model <- tryCatch(xgboost::xgb.Booster.complete(model, saveraw = FALSE),
                    error = function(e) NULL)
  if (is.null(model)) return(NULL)
  features <- model$feature_names
  if (is.null(features) || anyNA(features) || anyDuplicated(features)) return(NULL)
  features <- as.character(features)
  if (!is.raw(ubj)) {
    ubj <- tryCatch(xgboost::xgb.save.raw(model, raw_format = "ubj"), error = function(e) NULL)
  }
  if (!is.raw(ubj)) return(NULL)
  x <- xgb_read(ubj, length(features))
  if (is.character(x)) return(NULL)
  settings <- xgb_settings(x)
  if (is.null(settings)) return(NULL)
  n_trees <- xgb_n_trees(x$n_trees_all, model$best_iteration, settings$n_groups * settings$parallel)
  if (n_trees < 1L) return(NULL)
  nodes <- seq_len(x$tree_start[n_trees + 1L])
  group <- x$group[nodes]
  if (any(group >= settings$n_groups)) return(NULL)
  leaf <- x$feature[nodes] < 0L
  value <- matrix(0, length(nodes), settings$n_groups)
  value[cbind(which(leaf), group[leaf] + 1L)] <- x$leaf_value[nodes][leaf]
  base <- xgb_base(settings$link[1L], settings$base_score)
  if (!is.finite(base)) return(NULL)
  new_native(
    features = features, tree_start = x$tree_start[seq_len(n_trees + 1L)],
    feature = x$feature[nodes], threshold = x$threshold[nodes], left = x$left[nodes],
    right = x$right[nodes], missing = x$missing[nodes], rule = 1L, value = value,
    aggregate = "sum", base = rep(base, settings$n_groups), transform = settings$link[2L],
    float32 = TRUE,
    outputs = if (settings$n_groups > 1L) as.character(seq_len(settings$n_groups) - 1L),
    source = "xgb.Booster"
  )
}

# The booster outside R (its handle, which xgboost's functions may change
# in place) as the fingerprint of its compilation (native_compile_cached()): list(ubj), the model
# serialised (UBJSON, with its configuration: what the converter reads), or
# list(raw), the object's raw copy when the handle is not valid (after
# readRDS(); compiling restores it); NA when neither is there.
#' @exportS3Method native_fingerprint xgb.Booster
native_fingerprint.xgb.Booster <- function(model) {
  if (!requireNamespace("xgboost", quietly = TRUE)) return(NA)
  ubj <- tryCatch(xgboost::xgb.save.raw(model, raw_format = "ubj"), error = function(e) NULL)
  if (is.raw(ubj) && length(ubj)) return(list(ubj = ubj))
  if (is.raw(model$raw) && length(model$raw)) list(raw = model$raw) else NA
}

# From the model's settings (read by xgb_read()): the link (of the base
# margin, and the transform), base_score, the numbers of output groups and
# parallel trees; NULL when not supported.
xgb_settings <- function(x) {
  if (!identical(x$booster, "gbtree")) return(NULL)
  link <- switch(x$objective,
    "reg:squarederror" = , "reg:linear" = , "reg:pseudohubererror" = ,
    "reg:squaredlogerror" = , "reg:absoluteerror" = c("identity", "identity"),
    "binary:logistic" = , "reg:logistic" = c("logit", "logistic"),
    "binary:logitraw" = c("identity", "identity"),
    "count:poisson" = , "reg:gamma" = , "reg:tweedie" = c("log", "exp"),
    "multi:softprob" = c("identity", "softmax"),
    NULL
  )
  if (is.null(link)) return(NULL)
  number <- function(v, cast) suppressWarnings(cast(if (nzchar(v)) v else NA))
  base_score <- number(x$base_score, as.numeric)
  num_class <- number(x$num_class, as.integer)
  num_target <- number(x$num_target, as.integer)
  parallel <- number(x$num_parallel_tree, as.integer)
  if (is.na(num_target)) num_target <- 1L
  if (is.na(parallel)) parallel <- 1L
  # Multi-target models (num_target > 1) cannot be trained from R 1.7.
  if (anyNA(c(base_score, num_class)) || parallel < 1L || num_target != 1L) return(NULL)
  if (identical(x$objective, "multi:softprob") != (num_class > 1L)) return(NULL)
  list(link = link, base_score = base_score, n_groups = max(num_class, 1L),
       parallel = parallel)
}

# The trees predict() uses: all, or the first best_iteration iterations of
# per_iteration trees.
xgb_n_trees <- function(n_all, best, per_iteration) {
  if (!is.null(best) && length(best) == 1L && !is.na(best) && best > 0) {
    return(as.integer(min(n_all, as.integer(best) * per_iteration)))
  }
  as.integer(n_all)
}

# The base margin: base_score through the objective's link, as a float.
xgb_base <- function(link, base_score) {
  base <- switch(link,
    identity = base_score,
    logit = stats::qlogis(as_float(base_score)),
    log = log(as_float(base_score))
  )
  as_float(base)
}

# Round doubles to the nearest single-precision float (as a double).
as_float <- function(x) {
  if (!length(x)) return(numeric())
  readBin(writeBin(as.double(x), raw(), size = 4L), "double", n = length(x), size = 4L)
}
