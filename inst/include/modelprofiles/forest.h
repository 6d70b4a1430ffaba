// The data of a compiled tree ensemble: the flat arrays of the `mp_native`
// format (new_native() in R/native.R) seen through plain pointers, and the packed
// nodes the evaluation loops read. R-free.
#ifndef MODELPROFILES_FOREST_H
#define MODELPROFILES_FOREST_H

#include <cstddef>
#include <limits>
#include <vector>

namespace mp {

enum Aggregate { AGG_MEAN = 0, AGG_SUM = 1 };
enum Transform { TR_IDENTITY = 0, TR_LOGISTIC = 1, TR_EXP = 2, TR_SOFTMAX = 3 };

// A packed node. Inner node: `feature` (with CAT_FLAG set for a categorical
// split), `threshold`, the right child (the left child is the next node).
// Leaf: feature = -1, and `threshold` its value when the model has one
// output, else `right` the leaf's number (its values in Packed::leaf_values).
struct Node {
  double threshold;
  int feature;
  int right;
};
const int CAT_FLAG = 1 << 30;

// What a packed inner node needs besides Node, only when its value is missing
// or its split categorical: the missing child (packed index, or -1) and the
// categorical split's range of cat_left.
struct Aux {
  int missing, cat_start, cat_len;
};

// Everything the evaluation loops read (owned): the packed nodes, their
// auxiliary table (`aux` is empty when no node needs it), the trees' first
// packed nodes, the categorical tables and, for models of more than one
// output, the leaf values (n_outputs per leaf, indexed by the leaf's
// `right`). Filled by pack_forest() or pack_ranger() (pack.h, ranger.h).
struct Packed {
  std::vector<Node> nodes;
  std::vector<int> aux;
  std::vector<Aux> table;
  std::vector<int> tree_start;  // n_trees + 1
  std::vector<int> cat_left;    // 0/1
  std::vector<double> leaf_values;
};

// A view of the flat arrays (read by the checks and the packing) and of a
// packing (read by the evaluation loops); no ownership. Node indices of the
// flat arrays are global and 0-based; value is column-major n_nodes x
// n_outputs. Packed indices keep each tree within its range
// [roots[t], roots[t + 1]), the root first.
struct Forest {
  int n_trees = 0;
  int n_nodes = 0;
  int n_outputs = 1;
  int n_features = 0;
  // The flat arrays.
  const int* tree_start = nullptr;  // n_trees + 1
  const int* feature = nullptr;     // -1 at a leaf
  const double* threshold = nullptr;
  const int* left = nullptr;
  const int* right = nullptr;
  const int* missing = nullptr;     // -1: a missing value gives NA
  const int* cat_start = nullptr;   // -1: numeric split
  const int* cat_len = nullptr;
  const int* cat_left = nullptr;    // 0/1
  int n_cat = 0;                    // length of cat_left
  const double* value = nullptr;
  // The model's rules.
  const double* base = nullptr;     // n_outputs
  int rule = 0;                     // 0: left iff x <= t; 1: left iff x < t
  bool float32 = false;
  Aggregate aggregate = AGG_MEAN;
  Transform transform = TR_IDENTITY;
  double na = std::numeric_limits<double>::quiet_NaN();  // the NA to return
  // The packing (see Packed).
  const Node* nodes = nullptr;
  const int* aux = nullptr;  // nullptr: no missing children, no categorical splits
  const Aux* table = nullptr;
  const int* roots = nullptr;
  const int* cats = nullptr;
  const double* leaf_values = nullptr;

  // Value k of the leaf at packed index `node`.
  double leaf_value(int node, int k) const {
    return n_outputs == 1
               ? nodes[node].threshold
               : leaf_values[static_cast<std::size_t>(nodes[node].right) * n_outputs + k];
  }
  void use(const Packed& P) {
    nodes = P.nodes.data();
    aux = P.aux.empty() ? nullptr : P.aux.data();
    table = P.table.data();
    roots = P.tree_start.data();
    cats = P.cat_left.data();
    leaf_values = P.leaf_values.data();
    n_trees = static_cast<int>(P.tree_start.size()) - 1;
    n_nodes = static_cast<int>(P.nodes.size());
  }
};

}  // namespace mp

#endif
