# Converter of lightgbm boosters (lgb.Booster) into the native engine's
# `mp_native` (new_native(), R/native.R), or NULL as in R/native_boost.R.
# This file reads the model text into flat node vectors;
# R/native_lightgbm_trees.R turns them into the format's nodes.
#
# Source of the structure: the model text (booster$save_model_to_string()),
# in which lightgbm prints thresholds and leaf values with 17 significant
# digits ("{:.17g}"), so that they are read back as the very doubles the
# booster predicts with; every number is checked to print back to its text
# (else NULL). Checked against lightgbm 4.7.0 (include/LightGBM/tree.h,
# src/boosting/gbdt_prediction.cpp, src/c_api.cpp, src/objective/*.hpp):
#
# * predict() reads a dense matrix as doubles and drops the values with
#   |x| <= kZeroThreshold (1e-35f, i.e. 1.0000000180025095e-35; NaN kept):
#   they reach the trees as 0.0.
# * A numeric split (decision_type bit 0 clear; bit 1 default_left; bits 2-3
#   the missing type 0 None / 1 Zero / 2 NaN) goes left when x <= threshold
#   (all in double). Missing type None: a NaN is taken as 0.0. NaN: a NaN
#   goes to the default child. Zero: a NaN and every value in [-kZ, kZ] go
#   to the default child.
# * A categorical split (bit 0 set) sends NaN right, else casts x to int
#   (truncation: (-1, 1) is category 0; a value <= -1 goes right) and goes
#   left when that category's bit is set in the split's bitset
#   (cat_threshold words cat_boundaries[i] .. cat_boundaries[i + 1] - 1,
#   i = the threshold), right otherwise.
# * The raw score of output k is 0 + the leaf values of trees k, K + k,
#   2K + k, ... (K = num_tree_per_iteration), added iteration by iteration
#   in double; the initial score (boost_from_average) is inside the first
#   trees' leaves, so the base is 0. rf boosting ("average_output") divides
#   the sum by the number of iterations. Then the objective's ConvertOutput:
#   identity (regression, regression_l1, huber, fair, quantile, mape,
#   lambdarank, rank_xendcg), exp (poisson, gamma, tweedie),
#   1 / (1 + exp(-sigmoid * m)) (binary; cross_entropy with sigmoid 1),
#   softmax across the K outputs (multiclass; the same max-shifted formula
#   as the C++ side here).
# * predict() uses the first best_iter iterations when best_iter > 0 (set
#   by early stopping, or by lgb.train() from the validation metric), all
#   iterations otherwise.
#
# Precision: the thresholds, leaf values and comparisons are lightgbm's
# doubles, the sums are made in lightgbm's order starting from 0, and the
# transforms are the same double formulas, so the predictions are
# lightgbm's to the last bit. The one exception: a binary objective with a
# sigmoid other than a power of 2 is folded into the leaf values, which
# rounds (a relative difference of about 1e-16 per tree).
#
# Not supported (NULL): multiclassova and cross_entropy_lambda objectives,
# "sqrt" regression, custom objectives, linear trees, rf boosting of more
# than one output, a sigmoid whose printed (6-digit) value differs from the
# booster's parameter, boosters without feature names (the default
# Column_0, Column_1, ...: predict() reads the columns by position), and
# model texts that do not parse exactly.
# The outputs of a multiclass booster are named "0".."K-1" (lightgbm's
# labels), as the lightgbm adapter names its prediction columns.
# Categorical features are read as numbers (feature_levels NULL), as
# predict() reads as.matrix() of the data.

#' @exportS3Method native_model lgb.Booster
native_model.lgb.Booster <- function(model, fingerprint = NULL) {
  parts <- if (is.list(fingerprint)) fingerprint else lgb_parts(model)
  if (is.null(parts)) return(NULL)
  tryCatch(lgb_native(parts$text, best_iter = parts$best_iter, sigmoid_param = parts$sigmoid),
           lgb_refuse = function(e) NULL)
}

# What the converter reads of a booster: list(text, best_iter, sigmoid), or
# NULL when the model text cannot be had. A booster is an R6 object (an
# environment) whose model changes in place (update(), rollback_one_iter()),
# so this is also its fingerprint for its compilation (native_compile_cached()).
lgb_parts <- function(model) {
  if (!requireNamespace("lightgbm", quietly = TRUE)) return(NULL)
  text <- tryCatch(model$save_model_to_string(num_iteration = -1L), error = function(e) NULL)
  if (!is.character(text) || length(text) != 1L || is.na(text)) return(NULL)
  list(text = text, best_iter = tryCatch(model$best_iter, error = function(e) NULL),
       sigmoid = tryCatch(model$params$sigmoid, error = function(e) NULL))
}

#' @exportS3Method native_fingerprint lgb.Booster
native_fingerprint.lgb.Booster <- function(model) {
  parts <- lgb_parts(model)
  if (is.null(parts)) NA else parts
}

# kZeroThreshold (1e-35f as a double) and the largest double below -kZ.
LGB_KZ <- 1.0000000180025095e-35
LGB_KZ_BELOW <- -(LGB_KZ + 2^-169)

# The largest double below each (finite, positive) x.
lgb_below <- function(x) {
  e <- floor(log2(x))
  e <- e - (2^e > x) + (2^(e + 1) <= x)
  x - ifelse(x == 2^e, 2^(e - 53), 2^(e - 52))
}

lgb_refuse <- function() {
  stop(structure(class = c("lgb_refuse", "error", "condition"),
                 list(message = "not supported", call = NULL)))
}

# The mp_native of a lightgbm model text, or the condition "lgb_refuse";
# best_iter and sigmoid_param: the booster's (see above). general = TRUE
# rebuilds every tree by lgb_emit_tree() (for the tests: it must give the
# same predictions as the direct conversion); max_rebuilt caps the nodes of
# the rebuilt trees in all.
lgb_native <- function(text, best_iter = NULL, sigmoid_param = NULL, general = FALSE,
                       max_rebuilt = LGB_MAX_REBUILT) {
  sections <- lgb_sections(text)
  features <- lgb_features(sections$header)
  objective <- lgb_objective(sections$header, sigmoid_param)
  trees <- lgb_tree_lines(sections$body, objective$K, best_iter)
  nodes <- lgb_nodes(trees, length(features), objective$scale)
  nodes$cat_sets <- lgb_cat_sets(nodes, trees)
  conv <- lgb_conversion(nodes)
  n_trees <- trees$n_trees
  rebuild <- general | tabulate(nodes$node_tree[!conv$direct], n_trees) > 0L
  parts <- list()
  if (any(!rebuild)) parts$simple <- lgb_simple_trees(nodes, conv, !rebuild)
  if (any(rebuild)) parts$rebuilt <- lgb_rebuilt_trees(nodes, conv, rebuild, general, max_rebuilt)
  lgb_assemble(parts, n_trees, objective, features)
}

# Model text ----------------------------------------------------------------

# The header lines (before the first tree) and the tree lines (up to "end of
# trees") of a model text.
lgb_sections <- function(text) {
  lines <- strsplit(text, "\n", fixed = TRUE)[[1L]]
  end <- match("end of trees", lines)
  if (is.na(end)) lgb_refuse()
  first <- match(TRUE, startsWith(lines, "Tree="))
  if (is.na(first) || first > end) lgb_refuse()
  list(header = lines[seq_len(first - 1L)], body = lines[first:(end - 1L)])
}

# The value of the header line "key=value" (NA unless exactly one).
lgb_header_value <- function(header, key) {
  pre <- paste0(key, "=")
  l <- header[startsWith(header, pre)]
  if (length(l) != 1L) NA_character_ else substring(l, nchar(pre) + 1L)
}

# The feature names; refused when missing, duplicated or lightgbm's
# defaults (predict() then reads the columns by position).
lgb_features <- function(header) {
  features <- strsplit(lgb_header_value(header, "feature_names"), " ", fixed = TRUE)[[1L]]
  p <- length(features)
  max_idx <- suppressWarnings(as.integer(lgb_header_value(header, "max_feature_idx")))
  if (p == 0L || anyNA(features) || is.na(max_idx) || max_idx + 1L != p ||
      anyDuplicated(features) || any(!nzchar(features)) ||
      identical(features, paste0("Column_", seq_len(p) - 1L))) {
    lgb_refuse()
  }
  features
}

# The objective's transform, the leaf value scale (the binary sigmoid), the
# number of outputs K (trees per iteration) and whether the trees are
# averaged (rf boosting).
lgb_objective <- function(header, sigmoid_param) {
  objective <- lgb_header_value(header, "objective")
  if (is.na(objective)) lgb_refuse()
  tokens <- strsplit(objective, " ", fixed = TRUE)[[1L]]
  if (!length(tokens) || "sqrt" %in% tokens) lgb_refuse()
  transform <- switch(tokens[1L],
    regression = , regression_l1 = , huber = , fair = , quantile = , mape = ,
    lambdarank = , rank_xendcg = "identity",
    poisson = , gamma = , tweedie = "exp",
    binary = , cross_entropy = "logistic",
    multiclass = "softmax",
    lgb_refuse()
  )
  scale <- if (identical(tokens[1L], "binary")) lgb_sigmoid(tokens, sigmoid_param) else 1
  K <- suppressWarnings(as.integer(lgb_header_value(header, "num_tree_per_iteration")))
  n_class <- suppressWarnings(as.integer(lgb_header_value(header, "num_class")))
  softmax <- identical(transform, "softmax")
  if (is.na(K) || is.na(n_class) || K < 1L || K != n_class || softmax != (K > 1L)) lgb_refuse()
  if (softmax && !identical(lgb_token_value(tokens, "num_class"), as.double(K))) lgb_refuse()
  average <- "average_output" %in% header
  if (average && K != 1L) lgb_refuse()
  list(transform = transform, scale = scale, K = K, average = average)
}

# The number of the objective's token "name:value" (NA unless exactly one).
lgb_token_value <- function(tokens, name) {
  v <- tokens[startsWith(tokens, paste0(name, ":"))]
  if (length(v) != 1L) return(NA_real_)
  suppressWarnings(as.numeric(substring(v, nchar(name) + 2L)))
}

# The sigmoid of a binary objective. The text prints it with 6 digits; the
# booster trained in this session predicts with its parameter, which must
# agree.
lgb_sigmoid <- function(tokens, sigmoid_param) {
  scale <- lgb_token_value(tokens, "sigmoid")
  if (!is.finite(scale) || scale <= 0) lgb_refuse()
  if (!is.null(sigmoid_param) &&
      !identical(suppressWarnings(as.numeric(sigmoid_param))[1L], scale)) {
    lgb_refuse()
  }
  scale
}

# The lines of the trees predict() uses (the first best_iter iterations when
# best_iter > 0, else all), with the 1-based tree of each line.
lgb_tree_lines <- function(body, K, best_iter) {
  tid <- cumsum(startsWith(body, "Tree="))
  n_all <- tid[length(tid)]
  if (!identical(body[startsWith(body, "Tree=")], paste0("Tree=", seq_len(n_all) - 1L))) {
    lgb_refuse()
  }
  if (n_all %% K != 0L) lgb_refuse()
  n_iter <- n_all %/% K
  best <- suppressWarnings(as.integer(best_iter))
  if (length(best) == 1L && !is.na(best) && best > 0L) n_iter <- min(n_iter, best)
  n_trees <- n_iter * K
  if (n_trees < 1L) lgb_refuse()
  keep <- tid <= n_trees
  list(body = body[keep], tid = tid[keep], n_trees = n_trees)
}

# The value of the field "key=..." of each tree ("" where an optional field
# is absent); refused when a tree lacks it or has it twice.
lgb_field <- function(trees, key, optional = FALSE) {
  pre <- paste0(key, "=")
  sel <- startsWith(trees$body, pre)
  out <- character(trees$n_trees)
  if (!optional && !identical(trees$tid[sel], seq_len(trees$n_trees))) lgb_refuse()
  if (anyDuplicated(trees$tid[sel])) lgb_refuse()
  out[trees$tid[sel]] <- substring(trees$body[sel], nchar(pre) + 1L)
  out
}

lgb_words <- function(v) strsplit(v, " ", fixed = TRUE)

lgb_ints <- function(s) {
  x <- suppressWarnings(as.integer(s))
  if (anyNA(x)) lgb_refuse()
  x
}

# Doubles exactly: each must print back to its text with 17 digits.
lgb_dbls <- function(s) {
  x <- suppressWarnings(as.numeric(s))
  if (anyNA(x) || any(!is.finite(x)) || any(sprintf("%.17g", x) != s)) lgb_refuse()
  x
}

# The trees' inner nodes (lightgbm's arrays, concatenated in tree order;
# node_tree the 1-based tree of each) and leaves (leaf values times `scale`;
# leaf_tree), with decision_type unpacked. Children: inner nodes 0..L-2 of
# their tree, leaves ~c (c < 0).
lgb_nodes <- function(trees, p, scale) {
  n_leaves <- lgb_ints(lgb_field(trees, "num_leaves"))
  if (any(n_leaves < 1L)) lgb_refuse()
  if (any(lgb_field(trees, "is_linear") != "0")) lgb_refuse()
  n_cat <- lgb_ints(lgb_field(trees, "num_cat"))
  n_inner <- n_leaves - 1L
  keys <- c("split_feature", "threshold", "decision_type", "left_child", "right_child")
  words <- lapply(stats::setNames(nm = keys), function(k) lgb_words(lgb_field(trees, k)))
  leaf_words <- lgb_words(lgb_field(trees, "leaf_value"))
  if (!all(vapply(words, function(w) all(lengths(w) == n_inner), logical(1))) ||
      any(lengths(leaf_words) != n_leaves)) {
    lgb_refuse()
  }
  sf <- lgb_ints(unlist(words$split_feature))
  dt <- lgb_ints(unlist(words$decision_type))
  lc <- lgb_ints(unlist(words$left_child))
  rc <- lgb_ints(unlist(words$right_child))
  thr <- lgb_dbls(unlist(words$threshold))
  lv <- lgb_dbls(unlist(leaf_words)) * scale
  node_tree <- rep(seq_len(trees$n_trees), n_inner)
  if (any(sf < 0L | sf >= p)) lgb_refuse()
  Lt <- n_leaves[node_tree]
  if (any(lc >= Lt - 1L | rc >= Lt - 1L | lc < -Lt | rc < -Lt)) lgb_refuse()
  is_cat <- dt %% 2L == 1L
  mtype <- (dt %/% 4L) %% 4L
  if (any(mtype[!is_cat] == 3L)) lgb_refuse()
  list(
    n_leaves = n_leaves, n_inner = n_inner, n_cat = n_cat, node_tree = node_tree,
    leaf_tree = rep(seq_len(trees$n_trees), n_leaves), Lt = Lt, sf = sf, thr = thr,
    lc = lc, rc = rc, lv = lv, is_cat = is_cat,
    default_left = (dt %/% 2L) %% 2L == 1L, mtype = mtype
  )
}

# Per inner node, the (0-based) categories a categorical split sends left
# (NULL at numeric splits), from the tree's cat_boundaries and cat_threshold.
lgb_cat_sets <- function(nodes, trees) {
  cat_sets <- vector("list", length(nodes$sf))
  if (!any(nodes$is_cat)) return(cat_sets)
  cb_s <- lgb_words(lgb_field(trees, "cat_boundaries", optional = TRUE))
  ct_s <- lgb_words(lgb_field(trees, "cat_threshold", optional = TRUE))
  for (u in which(nodes$is_cat)) {
    t <- nodes$node_tree[u]
    cb <- lgb_ints(cb_s[[t]])
    words <- lgb_dbls(ct_s[[t]])
    i <- nodes$thr[u]
    if (i != round(i) || i < 0 || i + 2 > length(cb) || length(cb) != nodes$n_cat[t] + 1L) {
      lgb_refuse()
    }
    lo <- cb[i + 1L]
    hi <- cb[i + 2L]
    if (lo < 0L || hi > length(words) || hi < lo) lgb_refuse()
    cat_sets[[u]] <- lgb_bitset(words[seq_len(hi - lo) + lo])
  }
  cat_sets
}

# The positions (0-based) of the set bits of 32-bit words, lowest word first.
lgb_bitset <- function(w) {
  if (any(w < 0 | w >= 2^32 | w != round(w))) lgb_refuse()
  bits <- unlist(lapply(w, function(x) floor(x / 2^(0:31)) %% 2), use.names = FALSE)
  which(bits == 1) - 1L
}
