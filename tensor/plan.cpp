#include "tensor/plan.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <optional>
#include <stdexcept>

#include "tensor/remap.hpp"

namespace cyclocc::tensor {

LGroups label_groups(const Shape& s, const std::string& labels) {
  LGroups out;
  for (const Group& g : s.groups()) out.push_back({labels.substr(g.first, g.size), g.sym});
  return out;
}

std::string concat(const LGroups& g) {
  std::string s;
  for (const LGroup& x : g) s += x.labels;
  return s;
}

Shape shape_of(const LGroups& g, const std::map<char, int>& len) {
  std::vector<int> lens;
  std::vector<Sym> sym;
  for (const LGroup& x : g)
    for (std::size_t t = 0; t < x.labels.size(); ++t) {
      lens.push_back(len.at(x.labels[t]));
      sym.push_back(t + 1 < x.labels.size() ? x.sym : Sym::NS);
    }
  return Shape(lens, sym);
}

std::vector<int> positions(const std::string& from, const std::string& to) {
  std::vector<int> p;
  for (char c : to) {
    const auto k = from.find(c);
    if (k == std::string::npos) throw std::logic_error("positions: label missing");
    p.push_back(static_cast<int>(k));
  }
  return p;
}

Range range_of(const LGroups& g, std::size_t k) {
  int first = 0;
  for (std::size_t i = 0; i < k; ++i) first += static_cast<int>(g[i].labels.size());
  return Range{first, first + static_cast<int>(g[k].labels.size())};
}

namespace {

enum class Cls { I, J, K, H };

struct Labels {
  std::string a, b, c;
  std::map<char, int> len;
  std::map<char, Cls> cls;
};

Labels classify(const Tensor& A, const std::string& la, const Tensor& B, const std::string& lb, const Tensor& C,
                const std::string& lc) {
  Labels L{la, lb, lc, {}, {}};
  auto add = [&](const Tensor& T, const std::string& l, const char* what) {
    if (static_cast<int>(l.size()) != T.order())
      throw std::invalid_argument(std::string("contract: ") + what + " has " + std::to_string(T.order()) +
                                  " indices but labels \"" + l + "\"");
    for (std::size_t i = 0; i < l.size(); ++i) {
      if (l.find(l[i]) != i) throw std::invalid_argument("contract: repeated label in \"" + l + "\"");
      auto it = L.len.find(l[i]);
      if (it != L.len.end() && it->second != T.shape().lens[i])
        throw std::invalid_argument(std::string("contract: label ") + l[i] + " has two edge lengths");
      L.len[l[i]] = T.shape().lens[i];
    }
  };
  add(A, la, "A");
  add(B, lb, "B");
  add(C, lc, "C");
  for (const auto& [ch, n] : L.len) {
    const bool ia = la.find(ch) != std::string::npos, ib = lb.find(ch) != std::string::npos,
               ic = lc.find(ch) != std::string::npos;
    if (ia && ib && ic) L.cls[ch] = Cls::H;
    else if (ia && ic) L.cls[ch] = Cls::I;
    else if (ib && ic) L.cls[ch] = Cls::J;
    else if (ia && ib) L.cls[ch] = Cls::K;
    else throw std::invalid_argument(std::string("contract: label ") + ch + " appears in one tensor only");
  }
  return L;
}

// Index of the group of `groups` holding label c, and that group's symmetry.
std::pair<int, Sym> group_of(const LGroups& groups, char c) {
  for (std::size_t k = 0; k < groups.size(); ++k)
    if (groups[k].labels.find(c) != std::string::npos) return {static_cast<int>(k), groups[k].sym};
  return {-1, Sym::NS};
}

// Splits each group of `own` into the parts that stay together in the
// partner tensors: partner(c) gives an id (same id = same partner group) and
// the partner group's symmetry; a part keeps its symmetry if compatible.
// Labels inside a part are sorted by `rank`.
LGroups refine(const LGroups& own, const std::function<std::pair<int, Sym>(char)>& partner,
               const std::function<bool(char, Sym, Sym)>& keeps, const std::function<int(char)>& rank) {
  LGroups out;
  for (const LGroup& g : own) {
    if (g.labels.size() == 1) {
      out.push_back(g);
      continue;
    }
    std::vector<std::pair<int, std::string>> parts;
    for (char c : g.labels) {
      const int id = partner(c).first;
      auto it = std::find_if(parts.begin(), parts.end(), [&](const auto& p) { return p.first == id; });
      if (it == parts.end()) parts.push_back({id, std::string(1, c)});
      else it->second += c;
    }
    for (auto& [id, labels] : parts) {
      std::sort(labels.begin(), labels.end(), [&](char x, char y) { return rank(x) < rank(y); });
      const bool keep = labels.size() > 1 && keeps(labels[0], g.sym, partner(labels[0]).second);
      if (keep) out.push_back({labels, g.sym});
      else
        for (char c : labels) out.push_back({std::string(1, c), Sym::NS});
    }
  }
  return out;
}

struct Classes {
  LGroups I, J, K, H;  // subgroups by class: I, J, H in C'' order; K in A' order
};

LGroups filter(const LGroups& g, const Labels& L, Cls c) {
  LGroups out;
  for (const LGroup& x : g)
    if (L.cls.at(x.labels[0]) == c) out.push_back(x);
  return out;
}

LGroups join(std::initializer_list<const LGroups*> parts) {
  LGroups out;
  for (const LGroups* p : parts) out.insert(out.end(), p->begin(), p->end());
  return out;
}

std::string key_of(const Tensor& T, const std::string& l) {
  return l + (T.constant() ? "#" : ":") + layout_id(T.layout());
}

// Distinct tuples of the labels of `g` that `keep` selects: the m selected
// labels of a group count as a group of m (group_count: C(n, m) values when
// antisymmetric, C(n + m - 1, m) when symmetric, n for a lone label).
double distinct_tuples(const LGroups& g, const std::map<char, int>& len, const std::function<bool(char)>& keep) {
  double count = 1;
  for (const LGroup& x : g) {
    int m = 0, n = 0;
    for (char c : x.labels)
      if (keep(c)) {
        ++m;
        n = len.at(c);
      }
    if (m > 0) count *= static_cast<double>(group_count(n, m, x.sym));
  }
  return count;
}

// The useful flops of C += A * B (the documented formula, tensor/README.md):
// 2 x (distinct elements of C) x (distinct contracted tuples, packed as far as
// either operand's symmetry allows).
double useful_flops(const Labels& L, const LGroups& ga, const LGroups& gb, const LGroups& gc) {
  auto contracted = [&](char c) { return L.cls.at(c) == Cls::K; };
  const double k = std::min(distinct_tuples(ga, L.len, contracted), distinct_tuples(gb, L.len, contracted));
  return 2.0 * distinct_tuples(gc, L.len, [](char) { return true; }) * k;
}

struct Candidate {
  int pm = 1, pn = 1, pk = 1;
  int gi = -1, gj = -1, gk = -1;
  std::vector<char> dims;  // order of the grid dimensions: 'm', 'n', 'k'
};

Mapping make_map(const Candidate& c, const LGroups& mat, int im, int in, int ik) {
  Mapping m;
  for (char d : c.dims) {
    const int p = d == 'm' ? c.pm : d == 'n' ? c.pn : c.pk;
    const int g = d == 'm' ? im : d == 'n' ? in : ik;
    m.grid.push_back(p);
    m.range.push_back(g < 0 ? Range{} : range_of(mat, static_cast<std::size_t>(g)));
  }
  return m.normalized();
}

// C''' for the product mapping cm of C_c (groups c_mat): C'' (c_ref) with
// each group of C (gc) that C'' splits packed again when no grid dimension
// distributes one of its parts, and cm carried over to C''' positions. None
// when nothing is packed again, or when cm replicates C_c (partial sums).
struct Mid {
  LGroups groups;
  Mapping map;
};
// The index of the group of `groups` whose positions are r, or -1.
int group_at(const LGroups& groups, const Range& r) {
  for (std::size_t k = 0; k < groups.size(); ++k)
    if (range_of(groups, k) == r) return static_cast<int>(k);
  return -1;
}

std::optional<Mid> output_mid(const LGroups& gc, const LGroups& c_ref, const LGroups& c_mat, const Mapping& cm) {
  std::vector<std::string> spread;  // labels of the distributed C_c groups
  for (const Range& r : cm.range) {
    const int k = r.empty() ? -1 : group_at(c_mat, r);
    if (k < 0) return std::nullopt;
    spread.push_back(c_mat[k].labels);
  }
  Mid mid;
  bool packed = false;
  std::size_t j = 0;
  for (const LGroup& g : gc) {
    LGroups parts;
    for (std::size_t n = 0; n < g.labels.size(); ++j) {
      parts.push_back(c_ref[j]);
      n += c_ref[j].labels.size();
    }
    const bool split = parts.size() > 1 || parts[0].sym != g.sym;
    const bool spread_part = std::any_of(parts.begin(), parts.end(), [&](const LGroup& x) {
      return std::find(spread.begin(), spread.end(), x.labels) != spread.end();
    });
    if (split && !spread_part) {
      mid.groups.push_back(g);
      packed = true;
    } else {
      mid.groups.insert(mid.groups.end(), parts.begin(), parts.end());
    }
  }
  if (!packed) return std::nullopt;
  mid.map.grid = cm.grid;
  for (const std::string& labels : spread)
    for (std::size_t k = 0; k < mid.groups.size(); ++k)
      if (mid.groups[k].labels == labels) mid.map.range.push_back(range_of(mid.groups, k));
  return mid;
}

// Where operand A (groups own, refined into A') can move packed, before it
// unpacks into A_c (groups mat, mapping am): am carried over to A's positions.
// That needs every distributed A_c group to be a whole group of A, which
// keeps its position range in A'. None otherwise, or when am replicates A_c
// along some grid dimensions but not all.
std::optional<Mapping> packed_mapping(const LGroups& own, const LGroups& refined, const LGroups& mat,
                                      const Mapping& am) {
  if (am.whole_on_every_rank()) return Mapping::replicated(am.nranks());
  auto sorted = [](std::string s) {
    std::sort(s.begin(), s.end());
    return s;
  };
  Mapping pm;
  pm.grid = am.grid;
  for (const Range& r : am.range) {
    const int g = r.empty() ? -1 : group_at(mat, r);
    if (g < 0) return std::nullopt;
    const std::string labels = sorted(mat[g].labels);
    const auto whole = std::find_if(refined.begin(), refined.end(), [&](const LGroup& g) {
      return sorted(g.labels) == labels;
    });
    std::size_t k = 0;
    while (k < own.size() && sorted(own[k].labels) != labels) ++k;
    if (whole == refined.end() || k == own.size() || whole->sym != own[k].sym) return std::nullopt;
    pm.range.push_back(range_of(own, k));
  }
  return pm;
}

// The largest sent plus received words of any rank.
std::int64_t max_traffic(const std::vector<std::int64_t>& words, int P) {
  std::int64_t m = 0;
  for (int r = 0; r < P; ++r) m = std::max(m, traffic_of(words, P, r));
  return m;
}

int index_in(const LGroups& mat, const LGroups& cls, int k) {
  if (k < 0) return -1;
  for (std::size_t i = 0; i < mat.size(); ++i)
    if (mat[i].labels == cls[k].labels) return static_cast<int>(i);
  return -1;
}

std::vector<Candidate> candidates(int P, const Classes& cl) {
  std::vector<Candidate> out;
  for (int pm = 1; pm <= P; ++pm) {
    if (P % pm) continue;
    for (int pn = 1; pn <= P / pm; ++pn) {
      if ((P / pm) % pn) continue;
      const int pk = P / pm / pn;
      if ((pm > 1 && cl.I.empty()) || (pn > 1 && cl.J.empty()) || (pk > 1 && cl.K.empty())) continue;
      std::vector<char> dims;
      if (pm > 1) dims.push_back('m');
      if (pn > 1) dims.push_back('n');
      if (pk > 1) dims.push_back('k');
      std::sort(dims.begin(), dims.end());
      do {
        for (int gi = 0; gi < (pm > 1 ? static_cast<int>(cl.I.size()) : 1); ++gi)
          for (int gj = 0; gj < (pn > 1 ? static_cast<int>(cl.J.size()) : 1); ++gj)
            for (int gk = 0; gk < (pk > 1 ? static_cast<int>(cl.K.size()) : 1); ++gk)
              out.push_back(Candidate{pm, pn, pk, pm > 1 ? gi : -1, pn > 1 ? gj : -1, pk > 1 ? gk : -1, dims});
      } while (std::next_permutation(dims.begin(), dims.end()));
    }
  }
  return out;
}

std::string describe(const Candidate& c, const Classes& cl) {
  auto name = [](const LGroups& g, int k) { return k < 0 ? std::string("-") : g[k].labels; };
  std::string order;
  for (char d : c.dims) order += d;
  return "grid " + std::to_string(c.pm) + "x" + std::to_string(c.pn) + "x" + std::to_string(c.pk) +
         " m=" + name(cl.I, c.gi) + " n=" + name(cl.J, c.gj) + " k=" + name(cl.K, c.gk) +
         (order.empty() ? "" : " order=" + order);
}

}  // namespace

namespace {

// The plan of the lowest modelled time (best_t) for one arrangement of the
// local products: the usual one, or (lead) with C's first group G, when it
// is also the first group of the operand holding it, as a batch index of
// that operand and of C only. That operand goes on the right: B_c = [G|K|J']
// (or [G|J'|K]), C_c = [G|I|J'], and the local product is one dgemm per value
// of G, with A_c = [I|K] (or [K|I]) the same in each. So t_ij^ae F_be, with
// both t and C stored as [a|e|ij] and [a|b|ij], runs on the data as stored.
// Null when the arrangement does not apply.
std::shared_ptr<ContractionPlan> build_plan(const Tensor& A0, const std::string& la0, const Tensor& B0,
                                            const std::string& lb0, const Tensor& C, const std::string& lc, bool lead,
                                            double& best_t) {
  Context& ctx = C.ctx();
  auto plan = std::make_shared<ContractionPlan>();
  // Put the operand whose labels come first in C on the left, so C_c =
  // [H|I|J]; with `lead`, on the right.
  Labels L0 = classify(A0, la0, B0, lb0, C, lc);
  for (char ch : lc) {
    if (L0.cls.at(ch) == Cls::H) {
      if (lead) return nullptr;
      continue;
    }
    plan->swapped = L0.cls.at(ch) == (lead ? Cls::I : Cls::J);
    break;
  }
  const Tensor& A = plan->swapped ? B0 : A0;
  const Tensor& B = plan->swapped ? A0 : B0;
  const std::string& la = plan->swapped ? lb0 : la0;
  const std::string& lb = plan->swapped ? la0 : lb0;
  const Labels L = classify(A, la, B, lb, C, lc);

  const LGroups ga = label_groups(A.shape(), la), gb = label_groups(B.shape(), lb), gc = label_groups(C.shape(), lc);
  auto rank = [&](char c) {
    const auto k = lc.find(c);
    return k != std::string::npos ? static_cast<int>(k) : 100 + static_cast<int>(la.find(c));
  };
  int unique = 10000;
  auto partner_a = [&](char c) -> std::pair<int, Sym> {
    switch (L.cls.at(c)) {
      case Cls::I: return group_of(gc, c);
      case Cls::K: { auto p = group_of(gb, c); return {1000 + p.first, p.second}; }
      default: return {unique++, Sym::NS};
    }
  };
  auto partner_b = [&](char c) -> std::pair<int, Sym> {
    switch (L.cls.at(c)) {
      case Cls::J: return group_of(gc, c);
      case Cls::K: { auto p = group_of(ga, c); return {1000 + p.first, p.second}; }
      default: return {unique++, Sym::NS};
    }
  };
  auto partner_c = [&](char c) -> std::pair<int, Sym> {
    switch (L.cls.at(c)) {
      case Cls::I: return group_of(ga, c);
      case Cls::J: { auto p = group_of(gb, c); return {1000 + p.first, p.second}; }
      default: return {unique++, Sym::NS};
    }
  };
  // A contracted group stays folded when both operands have it (the
  // symmetric ones with weights, see ContractionPlan::a_sy_k).
  auto keeps = [&](char, Sym own, Sym other) { return own == other && own != Sym::NS; };
  plan->useful = useful_flops(L, ga, gb, gc);
  plan->a.refined = refine(ga, partner_a, keeps, rank);
  plan->b.refined = refine(gb, partner_b, keeps, rank);
  plan->c_refined = refine(gc, partner_c, keeps, rank);

  Classes cl;
  cl.I = filter(plan->c_refined, L, Cls::I);
  cl.J = filter(plan->c_refined, L, Cls::J);
  cl.H = filter(plan->c_refined, L, Cls::H);
  cl.K = filter(plan->a.refined, L, Cls::K);
  // With `lead`: G = C''s first group, also B''s first; J' = J without G.
  LGroups lead_g, j_rest = cl.J;
  if (lead) {
    const auto same = [](const LGroup& x, const LGroup& y) { return x.labels == y.labels && x.sym == y.sym; };
    if (!cl.H.empty() || cl.J.empty() || !same(plan->c_refined[0], cl.J[0]) || !same(plan->b.refined[0], cl.J[0]))
      return nullptr;
    lead_g = {cl.J[0]};
    j_rest.erase(j_rest.begin());
    plan->a_unbatched = true;
  }
  plan->n_batch = static_cast<int>(cl.H.size() + lead_g.size());
  plan->n_i = static_cast<int>(cl.I.size());
  plan->n_j = static_cast<int>(j_rest.size());
  plan->n_k = static_cast<int>(cl.K.size());
  for (const LGroup& g : cl.K)
    if (g.sym != Sym::NS)
      for (std::size_t t = 2; t <= g.labels.size(); ++t) plan->factor *= static_cast<double>(t);

  // Operand layouts: A' (relabelled A) and the matrix layouts.
  auto setup = [&](OperandPlan& op, const Tensor& T, const std::string& l, const LGroups& normal,
                   const LGroups& trans) {
    const std::string ref = concat(op.refined);
    op.ref_shape = shape_of(op.refined, L.len);
    op.relabel = ref != l || !(shape_of(op.refined, L.len) == T.shape());
    op.q = positions(l, ref);
    op.trans = concat(trans) == ref && concat(normal) != ref;
    const LGroups mat = op.trans ? trans : normal;
    op.mat_shape = shape_of(mat, L.len);
    op.perm = positions(ref, concat(mat));
  };
  const LGroups a_norm = join({&cl.H, &cl.I, &cl.K}), a_trans = join({&cl.H, &cl.K, &cl.I});
  const LGroups b_norm = join({&cl.H, &lead_g, &cl.K, &j_rest}), b_trans = join({&cl.H, &lead_g, &j_rest, &cl.K});
  const LGroups c_mat = join({&cl.H, &lead_g, &cl.I, &j_rest});
  setup(plan->a, A, la, a_norm, a_trans);
  setup(plan->b, B, lb, b_norm, b_trans);
  const LGroups a_mat = plan->a.trans ? a_trans : a_norm, b_mat = plan->b.trans ? b_trans : b_norm;
  for (std::size_t k = 0; k < a_mat.size(); ++k)
    if (a_mat[k].sym == Sym::SY && L.cls.at(a_mat[k].labels[0]) == Cls::K) plan->a_sy_k.push_back(range_of(a_mat, k));
  for (std::size_t k = 0; k < b_mat.size(); ++k)
    if (b_mat[k].sym == Sym::SY && L.cls.at(b_mat[k].labels[0]) == Cls::K) plan->b_sy_k.push_back(range_of(b_mat, k));
  const std::string c_ref = concat(plan->c_refined);
  plan->c_relabel = c_ref != lc || !(shape_of(plan->c_refined, L.len) == C.shape());
  plan->c_q = positions(c_ref, lc);
  plan->c_mat_shape = shape_of(c_mat, L.len);
  plan->c_perm = positions(concat(c_mat), c_ref);
  const Shape& a_ref_shape = plan->a.ref_shape;
  const Shape& b_ref_shape = plan->b.ref_shape;
  plan->c_ref_shape = shape_of(plan->c_refined, L.len);
  const Shape& c_ref_shape = plan->c_ref_shape;

  // Mapping search.
  const int P = ctx.nranks();
  double hsize = 1;
  for (const LGroup& g : cl.H) hsize *= L.len.at(g.labels[0]);
  auto cands = candidates(P, cl);
  const bool fallback = cands.empty();
  if (fallback) cands.push_back(Candidate{});
  best_t = std::numeric_limits<double>::infinity();
  for (const Candidate& cd : cands) {
    Mapping am, bm, cm;
    if (fallback) {
      am = bm = cm = Mapping::replicated(P);
    } else {
      am = make_map(cd, a_mat, index_in(a_mat, cl.I, cd.gi), -1, index_in(a_mat, cl.K, cd.gk));
      bm = make_map(cd, b_mat, -1, index_in(b_mat, cl.J, cd.gj), index_in(b_mat, cl.K, cd.gk));
      cm = make_map(cd, c_mat, index_in(c_mat, cl.I, cd.gi), index_in(c_mat, cl.J, cd.gj), -1);
    }
    const auto la_c = ctx.layout(plan->a.mat_shape, am);
    const auto lb_c = ctx.layout(plan->b.mat_shape, bm);
    const auto lc_c = ctx.layout(plan->c_mat_shape, cm);
    const bool a_alias = concat(a_mat) == concat(plan->a.refined) && A.mapping() == am;
    const bool b_alias = concat(b_mat) == concat(plan->b.refined) && B.mapping() == bm;
    const bool partial = cd.pk > 1;
    const bool c_direct = !plan->c_relabel && concat(c_mat) == lc && C.mapping() == cm && !partial;
    std::vector<std::int64_t> words(static_cast<std::size_t>(P) * P, 0);
    std::int64_t a_words = 0, b_words = 0;
    auto add = [&](const std::vector<std::int64_t>& w) {
      for (std::size_t i = 0; i < w.size(); ++i) words[i] += w[i];
      return traffic_of(w, P, ctx.rank());
    };
    // Elements each rank copies into new layouts (the largest count matters).
    // A constant operand is prepared once and kept (Tensor::set_constant),
    // so its redistribution costs nothing over the iterations, unless the
    // copy is too large to keep lightly (Context::set_kept_copy_words).
    std::vector<double> copies(P, 0.0);
    auto copied = [&](const Layout& l) {
      for (int r = 0; r < P; ++r) copies[r] += static_cast<double>(l.local_size(r));
    };
    std::vector<std::int64_t> kept(static_cast<std::size_t>(P) * P, 0);  // traffic of constant operands
    auto add_kept = [&](const std::vector<std::int64_t>& w) {
      for (std::size_t i = 0; i < w.size(); ++i) kept[i] += w[i];
    };
    // An operand that must be unpacked moves packed (the fewer words) and is
    // unpacked where it lands, when it can: always when it lands whole on
    // every rank, else when that sends no more words.
    std::optional<Mapping> a_packed, b_packed;
    auto operand_traffic = [&](const Tensor& T, const LGroups& own, const Shape& ref_shape, const Layout& mat,
                               const OperandPlan& op, const LGroups& op_mat, std::optional<Mapping>& packed) {
      auto w = remap_traffic(*ctx.layout(ref_shape, T.mapping()), mat, op.perm);
      auto pm = P > 1 && op.relabel ? packed_mapping(own, op.refined, op_mat, mat.mapping()) : std::nullopt;
      if (!pm) return w;
      auto wp = remap_traffic(T.layout(), *ctx.layout(T.shape(), *pm), identity_perm(T.order()));
      if (!mat.mapping().whole_on_every_rank() && max_traffic(wp, P) > max_traffic(w, P)) return w;
      packed = std::move(pm);
      return wp;
    };
    if (!a_alias) {
      const auto w = operand_traffic(A, ga, a_ref_shape, *la_c, plan->a, a_mat, a_packed);
      a_words = add(w);
      if (A.constant() && light_kept_copy(ctx, *la_c)) add_kept(w);
      else copied(*la_c);
    }
    if (!b_alias) {
      const auto w = operand_traffic(B, gb, b_ref_shape, *lb_c, plan->b, b_mat, b_packed);
      b_words = add(w);
      if (B.constant() && light_kept_copy(ctx, *lb_c)) add_kept(w);
      else copied(*lb_c);
    }
    // C_c moves to C as C'' or, when that sends fewer words, as C''' (Mid).
    std::optional<Mid> mid;
    if (!c_direct) {
      auto w = remap_traffic(*lc_c, *ctx.layout(c_ref_shape, C.mapping()), plan->c_perm, partial);
      if (auto m = P > 1 ? output_mid(gc, plan->c_refined, c_mat, cm) : std::nullopt) {
        const Shape s = shape_of(m->groups, L.len);
        const auto lm = ctx.layout(s, m->map);
        auto wm = remap_traffic(*lm, *ctx.layout(s, C.mapping()), identity_perm(s.order()));
        if (max_traffic(wm, P) < max_traffic(w, P)) {
          w = std::move(wm);
          mid = std::move(m);
          copied(*lm);
        }
      }
      add(w);
      copied(*lc_c);
    }
    // Elements of an operand a rank holds beyond its even share (1/P): what
    // a copy on several ranks makes each of them read in the local product.
    auto beyond_share = [&](const Layout& l, const OperandPlan& op, int r) {
      return std::max(0.0, static_cast<double>(l.local_size(r)) - static_cast<double>(op.mat_shape.packed_size()) / P);
    };
    std::int64_t max_words = 0;
    double max_flops = 0, max_reread = 0;
    for (int r = 0; r < P; ++r) {
      max_words = std::max(max_words, traffic_of(words, P, r) - traffic_of(kept, P, r));
      const double f = 2.0 * std::sqrt(static_cast<double>(la_c->local_size(r)) * lb_c->local_size(r) *
                                       lc_c->local_size(r) / hsize);
      max_flops = std::max(max_flops, f);
      max_reread = std::max(max_reread, beyond_share(*la_c, plan->a, r) + beyond_share(*lb_c, plan->b, r));
    }
    // Seconds: words at ~2 GB/s, dgemm at ~25 GFLOP/s, ~3 ns per element copied,
    // and ~0.4 ns (20 GB/s) per element a rank's local product reads beyond
    // its share of an operand. A light kept copy moves for free over the
    // iterations, but a copy on every rank is then read whole by every rank:
    // before this term H2O/aug-cc-pVTZ at 3 ranks split the ladder R+ over its
    // 15 pairs ij and kept <vv|vv>+ whole on every rank (peak 618 MB a rank;
    // split ef, reading a third each, 503 MB), CH2 cc-pVTZ UHF likewise (397
    // -> 179 MB). Only the excess counts, so plans that split every operand
    // evenly compare as before.
    // With `lead`, ~1 us more for each of the dgemms (the local values of G).
    double calls = 0;
    if (lead)
      for (int r = 0; r < P; ++r) calls = std::max(calls, static_cast<double>(lc_c->extents(r)[0]));
    const double t = 8.0 * max_words / 2e9 + max_flops / 2.5e10 + 8.0 * max_reread / 2e10 +
                     3e-9 * *std::max_element(copies.begin(), copies.end()) + 1e-6 * calls;
    if (t < best_t * (1 - 1e-12)) {
      best_t = t;
      plan->a.mat_map = am;
      plan->b.mat_map = bm;
      plan->c_mat_map = cm;
      plan->a.alias = a_alias;
      plan->b.alias = b_alias;
      plan->a.packed_first = a_packed;
      plan->b.packed_first = b_packed;
      plan->c_direct = c_direct;
      plan->c_mid.reset();
      if (mid) {
        const std::string labels = concat(mid->groups);
        plan->c_mid = ContractionPlan::Mid{shape_of(mid->groups, L.len), mid->map, positions(c_ref, labels),
                                           positions(labels, lc)};
      }
      plan->partial = partial;
      plan->mapping = (fallback ? std::string("replicated") : describe(cd, cl)) +
                      (lead ? " batch=" + lead_g[0].labels : std::string());
      plan->predicted = traffic_of(words, P, ctx.rank());
      plan->a.predicted = a_words;
      plan->b.predicted = b_words;
      plan->flops = 2.0 * std::sqrt(static_cast<double>(la_c->local_size()) * lb_c->local_size() *
                                    lc_c->local_size() / hsize);
    }
  }
  return plan;
}

}  // namespace

bool light_kept_copy(const Context& ctx, const Layout& copy) {
  for (int r = 0; r < ctx.nranks(); ++r)
    if (copy.local_size(r) > ctx.kept_copy_words()) return false;
  return true;
}

std::shared_ptr<const ContractionPlan> plan_contraction(const Tensor& A, const std::string& la, const Tensor& B,
                                                        const std::string& lb, const Tensor& C,
                                                        const std::string& lc) {
  Context& ctx = C.ctx();
  if (&A.ctx() != &ctx || &B.ctx() != &ctx) throw std::logic_error("contract: tensors of different contexts");
  const std::string key = key_of(A, la) + "*" + key_of(B, lb) + "->" + key_of(C, lc);
  auto cached = ctx.plans().find(key);
  if (cached != ctx.plans().end()) return cached->second;
  double t = 0, t_lead = 0;
  std::shared_ptr<const ContractionPlan> plan = build_plan(A, la, B, lb, C, lc, false, t);
  if (auto p = build_plan(A, la, B, lb, C, lc, true, t_lead); p && t_lead < t * (1 - 1e-12)) plan = std::move(p);
  ctx.plans()[key] = plan;
  return plan;
}

}  // namespace cyclocc::tensor
