# The nodes of the flat format for lightgbm's trees (read from the model text
# by R/native_lightgbm.R: lgb_nodes()). The format (rule 0: left when
# x <= threshold; a missing child per node; categorical tables over the
# codes 1..cat_len, everything else right) is reached as follows:
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
#   say: such a tree is rebuilt (lgb_emit_tree()), the split expanded into
#   two or three nodes and the subtrees it reaches twice copied (small: a
#   copy drops the splits its path decides). A tree that would grow over 16
#   times its size, or rebuilt trees of more than LGB_MAX_REBUILT nodes in
#   all, give NULL.

# Split conversion ------------------------------------------------------------

# Each split's conversion, as above: the format's `threshold` of a numeric
# split (exact where `direct`), `miss_left` (does NaN go left at a numeric
# split?) and `direct` (is the split one node of the format?).
lgb_conversion <- function(nodes) {
  thr <- nodes$thr
  num <- !nodes$is_cat
  nn <- num & nodes$mtype != 1L
  z <- num & nodes$mtype == 1L
  zl <- z & nodes$default_left
  zr <- z & !nodes$default_left
  threshold <- thr
  threshold[nn & thr >= -LGB_KZ & thr < 0] <- LGB_KZ_BELOW
  threshold[nn & thr >= 0 & thr < LGB_KZ] <- LGB_KZ
  threshold[zl] <- pmax(thr[zl], LGB_KZ)
  threshold[zr] <- pmin(thr[zr], LGB_KZ_BELOW)
  miss_left <- logical(length(thr))
  miss_left[nn] <- ifelse(nodes$mtype[nn] == 0L, 0 <= thr[nn], nodes$default_left[nn])
  miss_left[z] <- nodes$default_left[z]
  direct <- rep(TRUE, length(thr))
  direct[zl] <- thr[zl] >= LGB_KZ_BELOW
  direct[zr] <- thr[zr] <= LGB_KZ
  direct[nodes$is_cat] <- vapply(nodes$cat_sets[nodes$is_cat], function(s) !(0L %in% s),
                                 logical(1))
  list(threshold = threshold, miss_left = miss_left, direct = direct)
}

# The table (0/1 for the codes 1..max) of the categories `s` (0-based
# categories; category 0 not among them) going left.
lgb_table <- function(s) {
  m <- if (length(s)) max(s) else 0L
  as.integer(seq_len(m) %in% s)
}

# Trees kept as they are --------------------------------------------------------

# The format's nodes of the trees `simple` whose splits are all direct, with
# local (0-based) indices: a tree of L leaves keeps its inner nodes 0..L-2,
# leaf j becomes node L-1+j.
lgb_simple_trees <- function(nodes, conv, simple) {
  st <- simple[nodes$node_tree]
  sl <- simple[nodes$leaf_tree]
  L <- nodes$n_leaves[simple]
  local_child <- function(c, Lc) ifelse(c >= 0L, c, Lc - 1L - c - 1L)
  Ls <- nodes$Lt[st]
  left <- local_child(nodes$lc[st], Ls)
  right <- local_child(nodes$rc[st], Ls)
  inner_cat <- nodes$is_cat[st]
  n_leaf <- sum(sl)
  list(
    tree = c(nodes$node_tree[st], nodes$leaf_tree[sl]),
    local = c(sequence(L - 1L) - 1L, (L - 1L)[rep(seq_along(L), L)] + sequence(L) - 1L),
    feature = c(nodes$sf[st], rep(-1L, n_leaf)),
    threshold = c(ifelse(inner_cat, 0, conv$threshold[st]), rep(0, n_leaf)),
    left = c(left, rep(-1L, n_leaf)), right = c(right, rep(-1L, n_leaf)),
    missing = c(ifelse(inner_cat, right, ifelse(conv$miss_left[st], left, right)),
                rep(-1L, n_leaf)),
    cats = c(lapply(which(st), function(u) {
      if (nodes$is_cat[u]) lgb_table(nodes$cat_sets[[u]])
    }), vector("list", n_leaf)),
    value = c(rep(0, sum(st)), nodes$lv[sl])
  )
}

# Rebuilt trees -------------------------------------------------------------------

# The format's nodes of the trees `rebuild` (general: every split rebuilt,
# none taken as direct), each by lgb_emit_tree() with local indices, within
# max_rebuilt nodes in all.
lgb_rebuilt_trees <- function(nodes, conv, rebuild, general, max_rebuilt) {
  node_first <- c(0L, cumsum(nodes$n_inner))
  leaf_first <- c(0L, cumsum(nodes$n_leaves))
  budget <- max_rebuilt
  which_trees <- which(rebuild)
  built <- vector("list", length(which_trees))
  for (k in seq_along(which_trees)) {
    t <- which_trees[k]
    u <- node_first[t] + seq_len(nodes$n_inner[t])
    out <- lgb_emit_tree(
      sf = nodes$sf[u], thr = nodes$thr[u], t_new = conv$threshold[u],
      miss_left = conv$miss_left[u],
      direct = if (general) rep(FALSE, length(u)) else conv$direct[u],
      is_cat = nodes$is_cat[u], default_left = nodes$default_left[u],
      mtype = nodes$mtype[u], lc = nodes$lc[u], rc = nodes$rc[u],
      cat_sets = nodes$cat_sets[u],
      lv = nodes$lv[leaf_first[t] + seq_len(nodes$n_leaves[t])],
      cap = min(16L * (2L * nodes$n_leaves[t] - 1L), budget)
    )
    budget <- budget - length(out$feature)
    out$tree <- rep(t, length(out$feature))
    out$local <- seq_along(out$feature) - 1L
    built[[k]] <- out
  }
  lapply(stats::setNames(nm = names(built[[1L]])), lgb_column, parts = built)
}

# Rebuild one tree (lightgbm's arrays of its inner nodes and its leaf
# values) in the format, from the root in preorder (the root is node 0). A
# split that has a direct conversion (direct, t_new, miss_left) on a feature
# without other splits becomes that node. The splits on the other ("hot")
# features become one node when they can, else a chain of numeric nodes
# peeling off one interval at a time (a categorical split ends the chain
# with a table once category 0 is behind), whose ends copy the split's
# subtrees. A copy knows the interval (lo, hi] each hot feature lies in and
# whether it can be NaN; a split that this decides is not emitted. Returns
# the nodes (lgb_flatten()'s fields) with local 0-based child indices; more
# than `cap` nodes signal lgb_refuse.
lgb_emit_tree <- function(sf, thr, t_new, miss_left, direct, is_cat, default_left, mtype,
                          lc, rc, cat_sets, lv, cap) {
  hot_f <- unique(sf[!direct])
  hot <- sf %in% hot_f
  pieces <- vector("list", length(sf))
  pieces[hot] <- lapply(which(hot), function(u) {
    lgb_pieces(thr[u], is_cat[u], default_left[u], mtype[u], cat_sets[[u]])
  })
  tree <- list(sf = sf, t_new = t_new, miss_left = miss_left, is_cat = is_cat, lc = lc,
               rc = rc, cat_sets = cat_sets, lv = lv, hot = hot, hot_f = hot_f,
               pieces = pieces, p1 = lgb_below(1))
  nh <- length(hot_f)
  root <- if (length(sf)) 0L else -1L
  lgb_flatten(lgb_emit(tree, root, rep(-Inf, nh), rep(Inf, nh), rep(TRUE, nh), cap))
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
  c(lgb_merge(brk, dest), nan = nan)
}

# Pieces merged: the breakpoints between two pieces of one destination dropped.
lgb_merge <- function(brk, dest) {
  change <- dest[-1L] != dest[-length(dest)]
  list(brk = brk[change], dest = dest[c(TRUE, change)])
}

# The nodes of the subtree of node `ref` (lightgbm's: inner node ref, or
# leaf ~ref when negative) of lgb_emit_tree()'s `tree`, within the
# constraints lo, hi, nanok on the hot features (in hot_f's order), in at
# most `room` nodes.
lgb_emit <- function(tree, ref, lo, hi, nanok, room) {
  if (ref < 0L) {
    if (room < 1L) lgb_refuse()
    return(lgb_leaf(tree$lv[-ref]))
  }
  u <- ref + 1L
  if (!tree$hot[u]) return(lgb_direct_node(tree, u, lo, hi, nanok, room))
  h <- match(tree$sf[u], tree$hot_f)
  P <- tree$pieces[[u]]
  a <- lo[h]
  b <- hi[h]
  if (a > -Inf || b < Inf) {
    inside <- c(P$brk, Inf) > a & c(-Inf, P$brk) < b
    P <- c(lgb_merge(P$brk[P$brk > a & P$brk < b], P$dest[inside]), nan = P$nan)
  }
  lgb_chain(tree, u, h, P$brk, P$dest, P$nan, nanok[h], lo, hi, nanok, room)
}

# The nodes of the direct split u (its own node) over its two subtrees.
lgb_direct_node <- function(tree, u, lo, hi, nanok, room) {
  if (room < 1L) lgb_refuse()
  l <- lgb_emit(tree, tree$lc[u], lo, hi, nanok, room - 1L)
  r <- lgb_emit(tree, tree$rc[u], lo, hi, nanok, room - 1L - length(l))
  if (tree$is_cat[u]) {
    return(lgb_join(tree$sf[u], 0, lgb_table(tree$cat_sets[[u]]), l, r, nan_left = FALSE))
  }
  lgb_join(tree$sf[u], tree$t_new[u], NULL, l, r, nan_left = tree$miss_left[u])
}

# The nodes of the hot split u for its pieces brk/dest within the interval
# (lo[h], hi[h]] (NaN possible when nanp; nand the side of NaN).
lgb_chain <- function(tree, u, h, brk, dest, nand, nanp, lo, hi, nanok, room) {
  np <- length(dest)
  # Decided here: one child, no node.
  if (np == 0L) {
    return(lgb_emit(tree, if (nand == 0L) tree$lc[u] else tree$rc[u], lo, hi, nanok, room))
  }
  if (np == 1L && (!nanp || nand == dest[1L])) {
    return(lgb_emit(tree, if (dest[1L] == 0L) tree$lc[u] else tree$rc[u], lo, hi, nanok, room))
  }
  if (room < 1L) lgb_refuse()
  d1 <- dest[1L]
  c1 <- if (d1 == 0L) tree$lc[u] else tree$rc[u]
  c2 <- if (d1 == 0L) tree$rc[u] else tree$lc[u]
  if (np == 1L) {
    # Numbers one way, NaN the other.
    nanok[h] <- FALSE
    l <- lgb_emit(tree, c1, lo, hi, nanok, room - 1L)
    lo[h] <- Inf
    hi[h] <- Inf
    nanok[h] <- TRUE
    r <- lgb_emit(tree, c2, lo, hi, nanok, room - 1L - length(l))
    return(lgb_join(tree$sf[u], Inf, NULL, l, r, nan_left = FALSE))
  }
  cats <- tree$cat_sets[[u]]
  if (np > 2L && tree$is_cat[u] && (!(0L %in% cats) || hi[h] <= -1 || lo[h] >= tree$p1)) {
    # A table: category 0 is out of reach or goes right.
    nanok[h] <- nanp && nand == 0L
    l <- lgb_emit(tree, tree$lc[u], lo, hi, nanok, room - 1L)
    nanok[h] <- nanp && nand == 1L
    r <- lgb_emit(tree, tree$rc[u], lo, hi, nanok, room - 1L - length(l))
    return(lgb_join(tree$sf[u], 0, lgb_table(setdiff(cats, 0L)), l, r, nan_left = nand == 0L))
  }
  # The first piece left, the others right.
  b1 <- brk[1L]
  nan_left <- nand == d1
  hi0 <- hi[h]
  hi[h] <- b1
  nanok[h] <- nanp && nan_left
  l <- lgb_emit(tree, c1, lo, hi, nanok, room - 1L)
  hi[h] <- hi0
  lo[h] <- b1
  nanok[h] <- nanp && !nan_left
  room_r <- room - 1L - length(l)
  r <- if (np == 2L) lgb_emit(tree, c2, lo, hi, nanok, room_r) else
    lgb_chain(tree, u, h, brk[-1L], dest[-1L], nand, nanp && !nan_left, lo, hi, nanok, room_r)
  lgb_join(tree$sf[u], b1, NULL, l, r, nan_left = nan_left)
}

# A subtree is the list of its nodes in preorder (the node, the nodes of its
# left subtree, those of its right subtree). A node is the numeric vector
# c(feature, threshold, nan_left, value, n_left): feature -1 at a leaf,
# nan_left 1 when NaN goes left, n_left the size of the left subtree (so
# the children's positions follow), a categorical table as attribute
# "cats".

lgb_leaf <- function(value) list(c(-1, 0, 0, value, 0))

# The subtree of a split (feature, threshold or categorical table `cats`)
# over the subtrees l and r; NaN goes to l when nan_left.
lgb_join <- function(feature, threshold, cats, l, r, nan_left) {
  node <- c(feature, threshold, nan_left, 0, length(l))
  if (!is.null(cats)) attr(node, "cats") <- cats
  c(list(node), l, r)
}

# The nodes of a subtree as vectors, with local 0-based child indices.
lgb_flatten <- function(subtree) {
  m <- matrix(unlist(subtree, use.names = FALSE), nrow = 5L)
  feature <- as.integer(m[1L, ])
  leaf <- feature < 0L
  at <- seq_along(subtree) - 1L
  left <- ifelse(leaf, -1L, at + 1L)
  right <- ifelse(leaf, -1L, at + 1L + as.integer(m[5L, ]))
  list(feature = feature, threshold = m[2L, ], left = left, right = right,
       missing = ifelse(m[3L, ] == 1, left, right),
       cats = lapply(subtree, attr, which = "cats", exact = TRUE), value = m[4L, ])
}

# Assembly ----------------------------------------------------------------------

# The nodes' field k of all parts, concatenated.
lgb_column <- function(parts, k) {
  v <- lapply(parts, `[[`, k)
  if (identical(k, "cats")) do.call(c, unname(v)) else unlist(v, use.names = FALSE)
}

# The mp_native of the parts' nodes (per node its tree and local index):
# the trees in order, local indices made global, the categorical tables
# laid end to end, the leaf values in their tree's output column.
lgb_assemble <- function(parts, n_trees, objective, features) {
  K <- objective$K
  tree <- lgb_column(parts, "tree")
  ord <- order(tree, lgb_column(parts, "local"))
  tree <- tree[ord]
  tree_start <- c(0L, cumsum(tabulate(tree, n_trees)))
  offset <- tree_start[tree]
  globalise <- function(i) ifelse(i >= 0L, i + offset, -1L)
  feature <- lgb_column(parts, "feature")[ord]
  cats <- lgb_column(parts, "cats")[ord]
  cat_len <- lengths(cats)
  is_cat_node <- !vapply(cats, is.null, logical(1))
  cat_start <- rep(-1L, length(feature))
  cat_start[is_cat_node] <- c(0L, cumsum(cat_len[is_cat_node]))[seq_len(sum(is_cat_node))]
  value <- matrix(0, length(feature), K)
  leaf <- feature < 0L
  value[cbind(which(leaf), ((tree[leaf] - 1L) %% K) + 1L)] <- lgb_column(parts, "value")[ord][leaf]
  new_native(
    features = features, tree_start = tree_start, feature = feature,
    threshold = lgb_column(parts, "threshold")[ord],
    left = globalise(lgb_column(parts, "left")[ord]),
    right = globalise(lgb_column(parts, "right")[ord]),
    missing = globalise(lgb_column(parts, "missing")[ord]),
    cat_start = cat_start, cat_len = cat_len,
    cat_left = unlist(cats[is_cat_node], use.names = FALSE),
    rule = 0L, value = value, aggregate = if (objective$average) "mean" else "sum",
    base = rep(0, K), transform = objective$transform,
    outputs = if (K > 1L) as.character(seq_len(K) - 1L), source = "lgb.Booster"
  )
}
