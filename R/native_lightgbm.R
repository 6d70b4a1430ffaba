# Converter of lightgbm boosters (class lgb.Booster) into the flat
# tree-ensemble format of the native engine (an `mp_native` list; see
# tools/native-spec.md). NULL when the booster uses something the format
# cannot express exactly (the caller then falls back on predict()).
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
# The format (rule 0: left when x <= threshold; a missing child per node;
# categorical tables over the codes 1..cat_len, everything else right) is
# reached as follows:
# * The drop of tiny values is folded into the thresholds: a threshold t in
#   [-kZ, 0) becomes the largest double below -kZ, one in [0, kZ) becomes
#   kZ (exact for every x: on either side only tiny values move). The
#   missing child is where 0.0 goes (None) or the default child (NaN).
# * A Zero split becomes a numeric split when the default child is on the
#   side [-kZ, kZ] borders (default left and t >= the double below -kZ, or
#   default right and t <= kZ); a categorical split becomes a table when
#   category 0 goes right (the table's codes are the categories 1..max).
# * Any other split (a Zero split whose default child is on the far side
#   of the threshold; a categorical split sending category 0 left) sends a
#   union of intervals to one child, which one node of the format cannot
#   say: such a tree is rebuilt by a small walk (lgb_emit_tree()) that
#   expands the split into two or three nodes, copying the subtrees it
#   reaches twice, and drops the splits that the path already decides (the
#   copies of a subtree know the interval their feature lies in), so the
#   copies stay small. A tree that would grow over 16 times its size, or
#   rebuilt trees of more than 2^20 nodes in all, give NULL. (Zero splits
#   with the default child on the far side are common with zero_as_missing
#   = TRUE: such models grow about 4-fold, and take about 20 microseconds
#   per node to rebuild.)
#
# Precision: the thresholds, leaf values and comparisons are lightgbm's
# doubles, the sums are made in lightgbm's order starting from 0, and the
# transforms are the same double formulas (std::exp(), the max-shifted
# softmax), so the predictions are lightgbm's to the last bit: the maximum
# difference measured is 0 for every objective (regression, l1, huber,
# poisson, gamma, tweedie, binary, cross_entropy, multiclass; NA, zero as
# missing, categorical). The tests assert 0 for the identity transform and
# the format's 1e-12 otherwise (exp() of another libm could differ in an
# ulp). The one inexact case: a binary objective with a sigmoid other than
# 1 scales the leaf values (exact when the sigmoid is a power of 2; else a
# relative difference of about 1e-16 per tree, measured 3.9e-16 for 0.7).
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
native_model.lgb.Booster <- function(model) {
  if (!requireNamespace("lightgbm", quietly = TRUE)) return(NULL)
  text <- tryCatch(model$save_model_to_string(num_iteration = -1L), error = function(e) NULL)
  if (!is.character(text) || length(text) != 1L || is.na(text)) return(NULL)
  best <- tryCatch(model$best_iter, error = function(e) NULL)
  sigmoid <- tryCatch(model$params$sigmoid, error = function(e) NULL)
  tryCatch(lgb_native(text, best_iter = best, sigmoid_param = sigmoid),
           lgb_refuse = function(e) NULL)
}

# kZeroThreshold (1e-35f as a double) and the largest double below -kZ.
LGB_KZ <- 1.0000000180025095e-35
LGB_KZ_BELOW <- -(LGB_KZ + 2^-169)

# The most nodes that rebuilt trees may have in all (about 20 s of work).
LGB_MAX_REBUILT <- 2^20

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

# The mp_native of a lightgbm model text, or the condition "lgb_refuse".
# best_iter: the booster's best_iter (predict() uses that many iterations
# when > 0); sigmoid_param: the booster's sigmoid parameter, if any.
# general = TRUE rebuilds every tree by lgb_emit_tree() (for the tests: it
# must give the same predictions as the direct conversion); max_rebuilt caps
# the nodes of the rebuilt trees in all.
lgb_native <- function(text, best_iter = NULL, sigmoid_param = NULL, general = FALSE,
                       max_rebuilt = LGB_MAX_REBUILT) {
  lines <- strsplit(text, "\n", fixed = TRUE)[[1L]]
  end <- match("end of trees", lines)
  if (is.na(end)) lgb_refuse()
  is_tree <- startsWith(lines, "Tree=")
  first <- match(TRUE, is_tree)
  if (is.na(first) || first > end) lgb_refuse()
  header <- lines[seq_len(first - 1L)]
  value_of <- function(key) {
    pre <- paste0(key, "=")
    l <- header[startsWith(header, pre)]
    if (length(l) != 1L) NA_character_ else substring(l, nchar(pre) + 1L)
  }

  # Features.
  features <- strsplit(value_of("feature_names"), " ", fixed = TRUE)[[1L]]
  p <- length(features)
  max_idx <- suppressWarnings(as.integer(value_of("max_feature_idx")))
  if (p == 0L || anyNA(features) || is.na(max_idx) || max_idx + 1L != p ||
      anyDuplicated(features) || any(!nzchar(features)) ||
      identical(features, paste0("Column_", seq_len(p) - 1L))) {
    lgb_refuse()
  }

  # Objective -> transform.
  objective <- value_of("objective")
  if (is.na(objective)) lgb_refuse()
  tokens <- strsplit(objective, " ", fixed = TRUE)[[1L]]
  if (!length(tokens) || "sqrt" %in% tokens) lgb_refuse()
  token_value <- function(name) {
    v <- tokens[startsWith(tokens, paste0(name, ":"))]
    if (length(v) != 1L) return(NA_real_)
    suppressWarnings(as.numeric(substring(v, nchar(name) + 2L)))
  }
  transform <- switch(tokens[1L],
    regression = , regression_l1 = , huber = , fair = , quantile = , mape = ,
    lambdarank = , rank_xendcg = "identity",
    poisson = , gamma = , tweedie = "exp",
    binary = , cross_entropy = "logistic",
    multiclass = "softmax",
    lgb_refuse()
  )
  scale <- 1
  if (identical(tokens[1L], "binary")) {
    scale <- token_value("sigmoid")
    if (!is.finite(scale) || scale <= 0) lgb_refuse()
    # The text prints the sigmoid with 6 digits; the booster that was
    # trained in this session predicts with its parameter.
    if (!is.null(sigmoid_param) &&
        !identical(suppressWarnings(as.numeric(sigmoid_param))[1L], scale)) {
      lgb_refuse()
    }
  }
  K <- suppressWarnings(as.integer(value_of("num_tree_per_iteration")))
  n_class <- suppressWarnings(as.integer(value_of("num_class")))
  if (is.na(K) || is.na(n_class) || K < 1L || K != n_class) lgb_refuse()
  if (identical(transform, "softmax")) {
    if (K < 2L || !identical(token_value("num_class"), as.double(K))) lgb_refuse()
  } else if (K != 1L) {
    lgb_refuse()
  }
  average <- "average_output" %in% header
  if (average && K != 1L) lgb_refuse()

  # The trees' fields (one line of each per tree).
  body <- lines[first:(end - 1L)]
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
  body <- body[keep]
  tid <- tid[keep]
  field <- function(key, optional = FALSE) {
    pre <- paste0(key, "=")
    sel <- startsWith(body, pre)
    out <- character(n_trees)
    if (!optional && !identical(tid[sel], seq_len(n_trees))) lgb_refuse()
    if (anyDuplicated(tid[sel])) lgb_refuse()
    out[tid[sel]] <- substring(body[sel], nchar(pre) + 1L)
    out
  }
  split_list <- function(v) strsplit(v, " ", fixed = TRUE)
  as_ints <- function(s) {
    x <- suppressWarnings(as.integer(s))
    if (anyNA(x)) lgb_refuse()
    x
  }
  # Doubles exactly: each must print back to its text with 17 digits.
  as_dbls <- function(s) {
    x <- suppressWarnings(as.numeric(s))
    if (anyNA(x) || any(!is.finite(x)) || any(sprintf("%.17g", x) != s)) lgb_refuse()
    x
  }

  n_leaves <- as_ints(field("num_leaves"))
  if (any(n_leaves < 1L)) lgb_refuse()
  if (any(field("is_linear") != "0")) lgb_refuse()
  n_cat <- as_ints(field("num_cat"))
  n_inner <- n_leaves - 1L
  sf_s <- split_list(field("split_feature"))
  th_s <- split_list(field("threshold"))
  dt_s <- split_list(field("decision_type"))
  lc_s <- split_list(field("left_child"))
  rc_s <- split_list(field("right_child"))
  lv_s <- split_list(field("leaf_value"))
  if (any(lengths(sf_s) != n_inner) || any(lengths(th_s) != n_inner) ||
      any(lengths(dt_s) != n_inner) || any(lengths(lc_s) != n_inner) ||
      any(lengths(rc_s) != n_inner) || any(lengths(lv_s) != n_leaves)) {
    lgb_refuse()
  }
  sf <- as_ints(unlist(sf_s))
  dt <- as_ints(unlist(dt_s))
  lc <- as_ints(unlist(lc_s))
  rc <- as_ints(unlist(rc_s))
  thr <- as_dbls(unlist(th_s))
  lv <- as_dbls(unlist(lv_s)) * scale
  node_tree <- rep(seq_len(n_trees), n_inner)
  leaf_tree <- rep(seq_len(n_trees), n_leaves)
  if (any(sf < 0L | sf >= p)) lgb_refuse()
  # Children: inner nodes 0..L-2, leaves ~c (c < 0).
  Lt <- n_leaves[node_tree]
  if (any(lc >= Lt - 1L | rc >= Lt - 1L | lc < -Lt | rc < -Lt)) lgb_refuse()

  is_cat <- dt %% 2L == 1L
  default_left <- (dt %/% 2L) %% 2L == 1L
  mtype <- (dt %/% 4L) %% 4L
  if (any(mtype[!is_cat] == 3L)) lgb_refuse()

  # Categorical splits: the categories going left, per node.
  cat_sets <- vector("list", length(sf))
  if (any(is_cat)) {
    cb_s <- split_list(field("cat_boundaries", optional = TRUE))
    ct_s <- split_list(field("cat_threshold", optional = TRUE))
    for (u in which(is_cat)) {
      t <- node_tree[u]
      cb <- as_ints(cb_s[[t]])
      words <- as_dbls(ct_s[[t]])
      i <- thr[u]
      if (i != round(i) || i < 0 || i + 2 > length(cb) || length(cb) != n_cat[t] + 1L) lgb_refuse()
      lo <- cb[i + 1L]
      hi <- cb[i + 2L]
      if (lo < 0L || hi > length(words) || hi < lo) lgb_refuse()
      w <- words[seq_len(hi - lo) + lo]
      if (any(w < 0 | w >= 2^32 | w != round(w))) lgb_refuse()
      bits <- unlist(lapply(w, function(x) floor(x / 2^(0:31)) %% 2), use.names = FALSE)
      cat_sets[[u]] <- which(bits == 1) - 1L
    }
  }

  # Direct conversion of each split (NA where a tree must be rebuilt).
  n_nodes_in <- length(sf)
  t_new <- thr
  miss_left <- logical(n_nodes_in)
  direct <- rep(TRUE, n_nodes_in)
  num <- !is_cat
  # Missing types None and NaN: the drop of tiny values in the thresholds.
  nn <- num & mtype != 1L
  adj <- nn & thr >= -LGB_KZ & thr < 0
  t_new[adj] <- LGB_KZ_BELOW
  adj <- nn & thr >= 0 & thr < LGB_KZ
  t_new[adj] <- LGB_KZ
  miss_left[nn] <- ifelse(mtype[nn] == 0L, 0 <= thr[nn], default_left[nn])
  # Zero: numeric when the default child borders [-kZ, kZ].
  z <- num & mtype == 1L
  zl <- z & default_left
  zr <- z & !default_left
  direct[zl] <- thr[zl] >= LGB_KZ_BELOW
  direct[zr] <- thr[zr] <= LGB_KZ
  t_new[zl] <- pmax(thr[zl], LGB_KZ)
  t_new[zr] <- pmin(thr[zr], LGB_KZ_BELOW)
  miss_left[z] <- default_left[z]
  # Categorical: a table when category 0 goes right.
  if (any(is_cat)) {
    direct[is_cat] <- vapply(cat_sets[is_cat], function(s) !(0L %in% s), logical(1))
  }
  rebuild <- if (general) rep(TRUE, n_trees) else tabulate(node_tree[!direct], n_trees) > 0L

  # Nodes of the format, per tree, with local (0-based) indices.
  parts <- list()
  simple <- !rebuild
  if (any(simple)) {
    st <- simple[node_tree]
    sl <- simple[leaf_tree]
    L <- n_leaves[simple]
    # Local layout of a tree of L leaves: inner nodes 0..L-2, leaf j at L-1+j.
    local_child <- function(c, Lc) ifelse(c >= 0L, c, Lc - 1L - c - 1L)
    Ls <- Lt[st]
    left <- local_child(lc[st], Ls)
    right <- local_child(rc[st], Ls)
    inner_cat <- is_cat[st]
    parts$simple <- list(
      tree = c(node_tree[st], leaf_tree[sl]),
      local = c(sequence(L - 1L) - 1L, (L - 1L)[rep(seq_along(L), L)] + sequence(L) - 1L),
      feature = c(sf[st], rep(-1L, sum(sl))),
      threshold = c(ifelse(inner_cat, 0, t_new[st]), rep(0, sum(sl))),
      left = c(left, rep(-1L, sum(sl))),
      right = c(right, rep(-1L, sum(sl))),
      missing = c(ifelse(inner_cat, right, ifelse(miss_left[st], left, right)), rep(-1L, sum(sl))),
      cats = c(lapply(which(st), function(u) {
        if (is_cat[u]) lgb_table(cat_sets[[u]])
      }), vector("list", sum(sl))),
      value = c(rep(0, sum(st)), lv[sl])
    )
  }
  if (any(rebuild)) {
    node_first <- c(0L, cumsum(n_inner))
    leaf_first <- c(0L, cumsum(n_leaves))
    budget <- max_rebuilt
    built <- lapply(which(rebuild), function(t) {
      u <- node_first[t] + seq_len(n_inner[t])
      out <- lgb_emit_tree(
        sf = sf[u], thr = thr[u], t_new = t_new[u], miss_left = miss_left[u],
        direct = if (general) rep(FALSE, length(u)) else direct[u], is_cat = is_cat[u],
        default_left = default_left[u], mtype = mtype[u], lc = lc[u], rc = rc[u],
        cat_sets = cat_sets[u],
        lv = lv[leaf_first[t] + seq_len(n_leaves[t])],
        cap = min(16L * (2L * n_leaves[t] - 1L), budget)
      )
      budget <<- budget - length(out$feature)
      out$tree <- rep(t, length(out$feature))
      out$local <- seq_along(out$feature) - 1L
      out
    })
    parts$rebuilt <- lapply(names(built[[1L]]), function(k) {
      v <- lapply(built, `[[`, k)
      if (identical(k, "cats")) do.call(c, v) else unlist(v, use.names = FALSE)
    })
    names(parts$rebuilt) <- names(built[[1L]])
  }

  # Put the trees in order; local -> global indices.
  col <- function(k) {
    v <- lapply(parts, `[[`, k)
    if (identical(k, "cats")) do.call(c, unname(v)) else unlist(v, use.names = FALSE)
  }
  tree <- col("tree")
  ord <- order(tree, col("local"))
  tree <- tree[ord]
  sizes <- tabulate(tree, n_trees)
  tree_start <- c(0L, cumsum(sizes))
  offset <- tree_start[tree]
  globalise <- function(i) ifelse(i >= 0L, i + offset, -1L)
  feature <- col("feature")[ord]
  left <- globalise(col("left")[ord])
  right <- globalise(col("right")[ord])
  missing <- globalise(col("missing")[ord])
  cats <- col("cats")[ord]
  cat_len <- lengths(cats)
  is_cat_node <- !vapply(cats, is.null, logical(1))
  cat_start <- rep(-1L, length(feature))
  cat_start[is_cat_node] <- c(0L, cumsum(cat_len[is_cat_node]))[seq_len(sum(is_cat_node))]
  n_nodes <- length(feature)
  value <- matrix(0, n_nodes, K)
  leaf <- feature < 0L
  value[cbind(which(leaf), ((tree[leaf] - 1L) %% K) + 1L)] <- col("value")[ord][leaf]

  new_native(
    features = features, feature_levels = rep(list(NULL), p), tree_start = tree_start,
    feature = feature, threshold = col("threshold")[ord], left = left, right = right,
    missing = missing, cat_start = cat_start, cat_len = cat_len,
    cat_left = unlist(cats[is_cat_node], use.names = FALSE),
    rule = 0L, value = value, aggregate = if (average) "mean" else "sum",
    base = rep(0, K), transform = transform,
    outputs = if (K > 1L) as.character(seq_len(K) - 1L), source = "lgb.Booster"
  )
}

# The table (0/1 for the codes 1..max) of the categories `s` (0-based
# categories; category 0 not among them) going left.
lgb_table <- function(s) {
  m <- if (length(s)) max(s) else 0L
  as.integer(seq_len(m) %in% s)
}

# Where a split sends the real numbers: breakpoints b_1 < ... < b_n and
# destinations d_1..d_(n+1) (0 left, 1 right): d_i for x in (b_(i-1), b_i]
# (b_0 = -Inf included, b_(n+1) = Inf), merged (no two neighbours alike);
# `nan` the destination of NaN.
lgb_pieces <- function(thr, is_cat, default_left, mtype, cats) {
  if (is_cat) {
    m <- if (length(cats)) max(cats) else 0L
    codes <- seq_len(m)
    brk <- c(-1, lgb_below(c(1, codes + 1)))
    dest <- c(1L, if (0L %in% cats) 0L else 1L, 1L - (codes %in% cats), 1L)
    nan <- 1L
  } else {
    p <- LGB_KZ_BELOW
    brk <- if (thr < p) c(thr, p, LGB_KZ) else if (thr == p || thr == LGB_KZ) c(p, LGB_KZ)
           else if (thr < LGB_KZ) c(p, thr, LGB_KZ) else c(p, LGB_KZ, thr)
    up <- c(brk, Inf)
    in_zero <- c(-Inf, brk) >= p & up <= LGB_KZ # the pieces within [-kZ, kZ]
    dest <- 1L - (up <= thr)
    go_default <- if (default_left) 0L else 1L
    zero_dest <- if (0 <= thr) 0L else 1L
    if (mtype == 1L) {
      dest[in_zero] <- go_default
      nan <- go_default
    } else {
      dest[in_zero] <- zero_dest
      nan <- if (mtype == 0L) zero_dest else go_default
    }
  }
  change <- dest[-1L] != dest[-length(dest)]
  list(brk = brk[change], dest = dest[c(TRUE, change)], nan = nan)
}

# Rebuild one tree (lightgbm's arrays of its inner nodes and its leaf
# values) in the format, node by node from the root (preorder, so the root
# is node 0). A split that has a direct conversion (direct, t_new,
# miss_left) on a feature without other splits becomes that node. The
# splits on the other ("hot") features become one node when they can, else
# a chain of numeric nodes peeling off one interval at a time (a
# categorical split ends the chain with a table once category 0 is behind),
# whose ends copy the split's subtrees. A copy knows the interval (lo, hi]
# each hot feature lies in and whether it can be NaN; a split that this
# decides is not emitted. Returns the nodes with local 0-based child
# indices; more than `cap` nodes signal lgb_refuse.
lgb_emit_tree <- function(sf, thr, t_new, miss_left, direct, is_cat, default_left, mtype,
                          lc, rc, cat_sets, lv, cap) {
  hot_f <- unique(sf[!direct])
  hot <- sf %in% hot_f
  pieces <- vector("list", length(sf))
  for (u in which(hot)) {
    pieces[[u]] <- lgb_pieces(thr[u], is_cat[u], default_left[u], mtype[u], cat_sets[[u]])
  }
  p1 <- lgb_below(1)
  feature <- integer(cap)
  threshold <- numeric(cap)
  left <- right <- missing <- rep(-1L, cap)
  value <- numeric(cap)
  cats <- vector("list", cap)
  n <- 0L
  alloc <- function() {
    if (n >= cap) lgb_refuse()
    n <<- n + 1L
    n
  }
  # lo, hi, nanok: the constraints on the hot features (in hot_f's order).
  emit <- function(ref, lo, hi, nanok) {
    if (ref < 0L) {
      i <- alloc()
      feature[i] <<- -1L
      value[i] <<- lv[-ref]
      return(i - 1L)
    }
    u <- ref + 1L
    if (!hot[u]) {
      i <- alloc()
      feature[i] <<- sf[u]
      l <- emit(lc[u], lo, hi, nanok)
      r <- emit(rc[u], lo, hi, nanok)
      left[i] <<- l
      right[i] <<- r
      if (is_cat[u]) {
        cats[[i]] <<- lgb_table(cat_sets[[u]])
        missing[i] <<- r
      } else {
        threshold[i] <<- t_new[u]
        missing[i] <<- if (miss_left[u]) l else r
      }
      return(i - 1L)
    }
    h <- match(sf[u], hot_f)
    P <- pieces[[u]]
    a <- lo[h]
    b <- hi[h]
    brk <- P$brk
    dest <- P$dest
    if (a > -Inf || b < Inf) {
      inside <- c(brk, Inf) > a & c(-Inf, brk) < b
      brk <- brk[brk > a & brk < b]
      dest <- dest[inside]
      if (length(dest) > 1L) {
        change <- dest[-1L] != dest[-length(dest)]
        brk <- brk[change]
        dest <- dest[c(TRUE, change)]
      }
    }
    chain(u, h, brk, dest, P$nan, nanok[h], lo, hi, nanok)
  }
  # The nodes of split u for the pieces brk/dest of the interval
  # (lo[h], hi[h]] (NaN possible when nanp).
  chain <- function(u, h, brk, dest, nand, nanp, lo, hi, nanok) {
    np <- length(dest)
    if (np == 0L) return(emit(if (nand == 0L) lc[u] else rc[u], lo, hi, nanok))
    if (np == 1L && (!nanp || nand == dest[1L])) {
      return(emit(if (dest[1L] == 0L) lc[u] else rc[u], lo, hi, nanok))
    }
    i <- alloc()
    feature[i] <<- sf[u]
    d1 <- dest[1L]
    c1 <- if (d1 == 0L) lc[u] else rc[u]
    c2 <- if (d1 == 0L) rc[u] else lc[u]
    if (np == 1L) {
      # Numbers one way, NaN the other.
      threshold[i] <<- Inf
      nanok[h] <- FALSE
      l <- emit(c1, lo, hi, nanok)
      lo[h] <- Inf
      hi[h] <- Inf
      nanok[h] <- TRUE
      r <- emit(c2, lo, hi, nanok)
      left[i] <<- l
      right[i] <<- r
      missing[i] <<- r
      return(i - 1L)
    }
    if (np > 2L && is_cat[u] &&
        (!(0L %in% cat_sets[[u]]) || hi[h] <= -1 || lo[h] >= p1)) {
      # A table: category 0 is out of reach or goes right.
      cats[[i]] <<- lgb_table(setdiff(cat_sets[[u]], 0L))
      nanok[h] <- nanp && nand == 0L
      l <- emit(lc[u], lo, hi, nanok)
      nanok[h] <- nanp && nand == 1L
      r <- emit(rc[u], lo, hi, nanok)
      left[i] <<- l
      right[i] <<- r
      missing[i] <<- if (nand == 0L) l else r
      return(i - 1L)
    }
    b1 <- brk[1L]
    threshold[i] <<- b1
    nan_left <- nand == d1
    hi0 <- hi[h]
    hi[h] <- b1
    nanok[h] <- nanp && nan_left
    l <- emit(c1, lo, hi, nanok)
    hi[h] <- hi0
    lo[h] <- b1
    nanok[h] <- nanp && !nan_left
    r <- if (np == 2L) {
      emit(c2, lo, hi, nanok)
    } else {
      chain(u, h, brk[-1L], dest[-1L], nand, nanp && !nan_left, lo, hi, nanok)
    }
    left[i] <<- l
    right[i] <<- r
    missing[i] <<- if (nan_left) l else r
    i - 1L
  }
  nh <- length(hot_f)
  emit(if (length(sf)) 0L else -1L, rep(-Inf, nh), rep(Inf, nh), rep(TRUE, nh))
  s <- seq_len(n)
  is_table <- !vapply(cats[s], is.null, logical(1))
  list(
    feature = feature[s],
    threshold = ifelse(is_table, 0, threshold[s]),
    left = left[s],
    right = right[s],
    missing = missing[s],
    cats = cats[s],
    value = value[s]
  )
}
