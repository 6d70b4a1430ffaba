# Converters of boosted tree ensembles (gbm, xgboost) into the flat
# tree-ensemble format of the native engine (an `mp_native` list; see the
# format description next to the generic native_model() in native.R).
#
# Each converter returns NULL when the model uses something the flat format
# cannot express exactly (the caller then falls back on predict()).

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
# of a leaf) over trees 1..n.trees; trees are stored iteration by iteration,
# one per class within an iteration (multinomial).
# predict.gbm codes factors by level name against var.levels (the levels
# present in training, in order), so a level unknown to the model becomes NA
# and takes the MissingNode, as the format's unknown level -> NaN does.
# Ordered factors are coded 0..K-1 and split numerically; the format codes
# them 1..K, so their thresholds are shifted by one (exact: small integers
# plus .5).

#' @exportS3Method native_model gbm
native_model.gbm <- function(model) {
  dist <- model$distribution$name
  if (!is.character(dist) || length(dist) != 1L) return(NULL)
  # The scale of predict(type = "response") in predict.gbm.
  transform <- switch(dist,
    gaussian = , laplace = , tdist = , quantile = , huberized = ,
    coxph = "identity",
    bernoulli = , pairwise = , adaboost = "logistic",
    poisson = "exp",
    multinomial = "softmax",
    NULL
  )
  if (is.null(transform)) return(NULL)
  # adaboost: 1 / (1 + exp(-2 f)); doubling every term is exact.
  scale <- if (identical(dist, "adaboost")) 2 else 1

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
  n_classes <- model$num.classes
  if (is.null(n_classes)) n_classes <- 1L
  n_classes <- as.integer(n_classes)
  if (identical(dist, "multinomial")) {
    classes <- as.character(model$classes)
    if (length(classes) != n_classes) return(NULL)
  } else if (n_classes != 1L) {
    return(NULL)
  }
  n_trees <- as.integer(model$n.trees)
  if (length(n_trees) != 1L || is.na(n_trees) || n_trees < 1L ||
      length(model$trees) < n_trees * n_classes) {
    return(NULL)
  }
  trees <- model$trees[seq_len(n_trees * n_classes)]

  nominal <- var_type > 0L
  ordered <- !nominal & vapply(var_levels, is.character, logical(1))
  feature_levels <- lapply(seq_len(p), function(j) {
    if (nominal[j] || ordered[j]) as.character(var_levels[[j]])
  })
  names(feature_levels) <- NULL

  col <- function(k) unlist(lapply(trees, `[[`, k), use.names = FALSE)
  split_var <- as.integer(col(1L))
  split_code <- as.double(col(2L))
  left <- as.integer(col(3L))
  right <- as.integer(col(4L))
  missing <- as.integer(col(5L))
  sizes <- lengths(lapply(trees, `[[`, 1L))
  if (any(sizes < 1L) || length(split_code) != length(split_var) ||
      length(left) != length(split_var) || length(right) != length(split_var) ||
      length(missing) != length(split_var)) {
    return(NULL)
  }
  tree_start <- as.integer(cumsum(c(0, sizes)))
  offset <- rep(tree_start[-length(tree_start)], sizes)
  n_nodes <- length(split_var)

  inner <- split_var >= 0L
  if (any(split_var[inner] >= p)) return(NULL)
  leaf <- !inner
  var <- pmax(split_var, 0L) + 1L # 1-based variable of a split (1 at leaves)
  globalise <- function(i) ifelse(inner & i >= 0L, i + offset, -1L)
  left <- as.integer(globalise(left))
  right <- as.integer(globalise(right))
  missing <- as.integer(globalise(missing))
  if (any(left[inner] < 0L | right[inner] < 0L)) return(NULL)

  threshold <- numeric(n_nodes)
  num <- inner & !nominal[var]
  threshold[num] <- split_code[num] + ifelse(ordered[var[num]], 1, 0)

  cat_start <- rep(-1L, n_nodes)
  cat_len <- rep(0L, n_nodes)
  cat_left <- integer()
  cat_nodes <- which(inner & nominal[var])
  if (length(cat_nodes)) {
    c_splits <- model$c.splits
    idx <- split_code[cat_nodes] + 1
    if (any(idx != round(idx)) || any(idx < 1) || any(idx > length(c_splits))) return(NULL)
    codes <- lapply(c_splits[idx], as.integer)
    flat <- unlist(codes, use.names = FALSE)
    # 0 would send a level to the MissingNode, which the format cannot say.
    if (!all(flat %in% c(-1L, 1L))) return(NULL)
    cat_len[cat_nodes] <- lengths(codes)
    cat_start[cat_nodes] <- as.integer(cumsum(c(0L, lengths(codes)))[seq_along(codes)])
    cat_left <- as.integer(flat == -1L)
  }

  value <- matrix(0, n_nodes, n_classes)
  tree_class <- rep((seq_along(trees) - 1L) %% n_classes + 1L, sizes)
  value[cbind(which(leaf), tree_class[leaf])] <- scale * split_code[leaf]
  split_var[leaf] <- -1L

  structure(list(
    kind = "trees",
    features = features,
    feature_levels = feature_levels,
    tree_start = tree_start,
    feature = split_var,
    threshold = threshold,
    left = left,
    right = right,
    missing = missing,
    cat_start = cat_start,
    cat_len = cat_len,
    cat_left = cat_left,
    rule = 1L,
    value = value,
    aggregate = "sum",
    base = rep(scale * as.double(model$initF[1L]), n_classes),
    transform = transform,
    float32 = FALSE,
    outputs = if (identical(dist, "multinomial")) classes,
    source = "gbm"
  ), class = "mp_native")
}

# The data column a formula term label names ("x", "`my x`"), or NA for a
# term computed from the data ("log(x)").
term_column <- function(x) {
  e <- tryCatch(str2lang(x), error = function(e) NULL)
  if (is.symbol(e)) as.character(e) else NA_character_
}

# xgboost -------------------------------------------------------------------

# xgboost (tested with 1.7.8.1), tree boosters ("gbtree"; not "dart", whose
# trees carry weights, nor "gblinear"). The text dump (xgb.dump) lists each
# tree as
#   <id>:[f<j><<threshold>] yes=<id>,no=<id>,missing=<id>
#   <id>:leaf=<value>
# with feature j 0-based and floats printed with enough digits to round-trip.
# xgboost stores the data as float and compares x < threshold in float; the
# leaf values are floats summed (in float) onto the base margin, then
# transformed. The converter rounds thresholds and leaf values to float
# exactly (so float32 = TRUE only needs the data cast).
# The base margin is the objective's transform of base_score (from the
# booster's configuration): logit for binary:logistic and reg:logistic, log
# for count:poisson, reg:gamma and reg:tweedie, base_score itself otherwise
# (binary:logitraw included, as predict() shows).
# Tree t (0-based) belongs to output group (t %/% num_parallel_tree) %%
# n_groups; predict() uses the first best_iteration iterations when early
# stopping set one.
# Not supported (NULL): dart and gblinear boosters, objectives whose
# prediction is not a transform of the margin (multi:softmax, binary:hinge,
# ranking, survival), categorical splits, and boosters without feature names
# (predict() then reads the columns by position).

#' @exportS3Method native_model xgb.Booster
native_model.xgb.Booster <- function(model) {
  if (!requireNamespace("xgboost", quietly = TRUE)) return(NULL)
  model <- tryCatch(xgboost::xgb.Booster.complete(model, saveraw = FALSE),
                    error = function(e) NULL)
  if (is.null(model)) return(NULL)
  features <- model$feature_names
  # Without feature names, predict() reads the columns by position.
  if (is.null(features) || anyNA(features) || anyDuplicated(features)) return(NULL)
  features <- as.character(features)
  config <- tryCatch(xgboost::xgb.config(model), error = function(e) NULL)
  if (!is.character(config) || length(config) != 1L) return(NULL)

  booster <- json_string_field(config, "booster")
  if (!identical(booster, "gbtree")) return(NULL)
  objective <- json_object_name(config, "objective")
  if (is.na(objective)) return(NULL)
  link <- switch(objective,
    "reg:squarederror" = , "reg:linear" = , "reg:pseudohubererror" = ,
    "reg:squaredlogerror" = , "reg:absoluteerror" = c("identity", "identity"),
    "binary:logistic" = , "reg:logistic" = c("logit", "logistic"),
    "binary:logitraw" = c("identity", "identity"),
    "count:poisson" = , "reg:gamma" = , "reg:tweedie" = c("log", "exp"),
    "multi:softprob" = c("identity", "softmax"),
    NULL
  )
  if (is.null(link)) return(NULL)
  base_score <- suppressWarnings(as.numeric(json_string_field(config, "base_score")))
  num_class <- suppressWarnings(as.integer(json_string_field(config, "num_class")))
  num_target <- suppressWarnings(as.integer(json_string_field(config, "num_target")))
  parallel <- suppressWarnings(as.integer(json_string_field(config, "num_parallel_tree")))
  if (is.na(num_target)) num_target <- 1L
  if (is.na(parallel)) parallel <- 1L
  # Multi-target models (num_target > 1) cannot be trained from R 1.7.
  if (anyNA(c(base_score, num_class)) || parallel < 1L || num_target != 1L) return(NULL)
  n_groups <- max(num_class, 1L)
  if (identical(objective, "multi:softprob") != (num_class > 1L)) return(NULL)

  dump <- tryCatch(xgboost::xgb.dump(model, with_stats = FALSE, dump_format = "text"),
                   error = function(e) NULL)
  if (!is.character(dump)) return(NULL)
  dump <- trimws(dump)
  header <- grepl("^booster\\[[0-9]+\\]:?$", dump)
  if (!length(dump) || !header[1L]) return(NULL)
  tree <- cumsum(header) - 1L                  # 0-based tree of each line
  lines <- dump[!header]
  tree <- tree[!header]
  n_all <- sum(header)

  # Trees predict() uses: all, or the first best_iteration iterations.
  per_iteration <- n_groups * parallel
  n_trees <- n_all
  best <- model$best_iteration
  if (!is.null(best) && length(best) == 1L && !is.na(best) && best > 0) {
    n_trees <- min(n_all, as.integer(best) * per_iteration)
  }
  keep <- tree < n_trees
  lines <- lines[keep]
  tree <- tree[keep]
  if (n_trees < 1L || !length(lines)) return(NULL)

  num_rx <- "[-+]?(?:[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?|inf|INF|Inf)"
  split_rx <- paste0("^([0-9]+):\\[(.+)<(", num_rx, ")\\] yes=([0-9]+),no=([0-9]+),missing=([0-9]+)$")
  leaf_rx <- paste0("^([0-9]+):leaf=(", num_rx, ")$")
  is_leaf <- grepl(leaf_rx, lines, perl = TRUE)
  is_split <- !is_leaf & grepl(split_rx, lines, perl = TRUE)
  # Anything else (categorical or indicator splits) is not supported.
  if (!all(is_leaf | is_split)) return(NULL)

  n_nodes <- length(lines)
  feature <- rep(-1L, n_nodes)
  threshold <- numeric(n_nodes)
  left <- right <- missing <- rep(-1L, n_nodes)
  id <- integer(n_nodes)
  leaf_value <- numeric(n_nodes)

  # Fields of the splits: id, feature, threshold, yes, no, missing.
  sp <- split_fields(sub(split_rx, "\\1\t\\2\t\\3\t\\4\t\\5\t\\6", lines[is_split], perl = TRUE), 6L)
  lf <- split_fields(sub(leaf_rx, "\\1\t\\2", lines[is_leaf], perl = TRUE), 2L)
  if (is.null(sp) || is.null(lf)) return(NULL)
  id[is_split] <- as.integer(sp[, 1L])
  id[is_leaf] <- as.integer(lf[, 1L])
  token <- sp[, 2L]
  j <- match(token, features)
  by_index <- is.na(j) & grepl("^f[0-9]+$", token)
  j[by_index] <- as.integer(substring(token[by_index], 2L)) + 1L
  if (anyNA(j) || any(j > length(features))) return(NULL)
  feature[is_split] <- j - 1L
  threshold[is_split] <- as_float(as.numeric(sp[, 3L]))
  leaf_value[is_leaf] <- as_float(as.numeric(lf[, 2L]))

  # Global 0-based node indices: the nodes of a tree in dump order (the root,
  # id 0, comes first). A tree's node ids are small, so a table indexed by
  # (tree, id) finds them.
  sizes <- tabulate(tree + 1L, n_trees)
  if (any(sizes < 1L) || anyNA(id)) return(NULL)
  tree_start <- as.integer(cumsum(c(0, sizes)))
  first <- tree_start[-length(tree_start)] + 1L
  if (any(id[first] != 0L)) return(NULL)
  id_span <- vapply(split(id, tree), max, integer(1)) + 1L
  id_base <- cumsum(c(0, id_span))[seq_len(n_trees)]
  slot <- id_base[tree + 1L] + id + 1L
  if (anyDuplicated(slot)) return(NULL)
  position <- rep(NA_integer_, sum(id_span))
  position[slot] <- seq_len(n_nodes) - 1L
  to_global <- function(ids) {
    ids <- as.integer(ids)
    ok <- !is.na(ids) & ids >= 0L & ids < id_span[tree[is_split] + 1L]
    out <- rep(NA_integer_, length(ids))
    out[ok] <- position[(id_base[tree[is_split] + 1L] + ids + 1L)[ok]]
    out
  }
  left[is_split] <- to_global(sp[, 4L])
  right[is_split] <- to_global(sp[, 5L])
  missing[is_split] <- to_global(sp[, 6L])
  if (anyNA(left) || anyNA(right) || anyNA(missing)) return(NULL)

  group <- (tree %/% parallel) %% n_groups + 1L
  value <- matrix(0, n_nodes, n_groups)
  value[cbind(which(is_leaf), group[is_leaf])] <- leaf_value[is_leaf]

  base <- switch(link[1L],
    identity = base_score,
    logit = stats::qlogis(as_float(base_score)),
    log = log(as_float(base_score))
  )
  base <- as_float(base)
  if (!is.finite(base)) return(NULL)

  structure(list(
    kind = "trees",
    features = features,
    feature_levels = rep(list(NULL), length(features)),
    tree_start = tree_start,
    feature = feature,
    threshold = threshold,
    left = left,
    right = right,
    missing = missing,
    cat_start = rep(-1L, n_nodes),
    cat_len = rep(0L, n_nodes),
    cat_left = integer(),
    rule = 1L,
    value = value,
    aggregate = "sum",
    base = rep(base, n_groups),
    transform = link[2L],
    float32 = TRUE,
    outputs = if (n_groups > 1L) as.character(seq_len(n_groups) - 1L),
    source = "xgb.Booster"
  ), class = "mp_native")
}

# Tab-separated fields (exactly k per string) as a character matrix, or NULL.
split_fields <- function(x, k) {
  parts <- strsplit(x, "\t", fixed = TRUE)
  if (any(lengths(parts) != k)) return(NULL)
  matrix(as.character(unlist(parts, use.names = FALSE)), ncol = k, byrow = TRUE)
}

# Round doubles to the nearest single-precision float (as a double).
as_float <- function(x) {
  if (!length(x)) return(numeric())
  readBin(writeBin(as.double(x), raw(), size = 4L), "double", n = length(x), size = 4L)
}

# The first string value of "field":"value" in a JSON text (NA if absent).
json_string_field <- function(json, field) {
  m <- regmatches(json, regexec(paste0('"', field, '":"([^"]*)"'), json))[[1L]]
  if (length(m) < 2L) NA_character_ else m[2L]
}

# The "name" of the JSON object "field":{"name":"..."} (NA if absent).
json_object_name <- function(json, field) {
  m <- regmatches(json, regexec(paste0('"', field, '":\\{"name":"([^"]*)"'), json))[[1L]]
  if (length(m) < 2L) NA_character_ else m[2L]
}
