#include "chem/cc/amplitudes.hpp"

#include <algorithm>
#include <cmath>

namespace cyclocc::cc {

using tensor::Sym;

Amplitudes::Amplitudes(tensor::Context& ctx, const SpinDims& d, bool triples)
    : t1(ctx, d, "vo", {Sym::NS, Sym::NS}, "T1"),
      t2(ctx, d, "vvoo", {Sym::AS, Sym::NS, Sym::AS, Sym::NS}, "T2") {
  if (triples) t3.emplace(ctx, d, "vvvooo", std::vector<Sym>{Sym::AS, Sym::AS, Sym::NS, Sym::AS, Sym::AS, Sym::NS}, "T3");
}

Amplitudes Amplitudes::zeros_like(const Amplitudes& a) {
  return Amplitudes(a.t1.ctx(), a.t1.dims(), a.t3.has_value());
}

namespace {
template <class F>
void each_pair(Amplitudes& a, const Amplitudes& b, F&& f) {
  f(a.t1, b.t1);
  f(a.t2, b.t2);
  if (a.t3 && b.t3) f(*a.t3, *b.t3);
}
}  // namespace

void Amplitudes::set_zero() {
  t1.set_zero();
  t2.set_zero();
  if (t3) t3->set_zero();
}

void Amplitudes::scale(double alpha) {
  t1.scale(alpha);
  t2.scale(alpha);
  if (t3) t3->scale(alpha);
}

// The element-wise operations below work on the computed blocks only: in a
// restricted calculation the blocks filled from a flipped partner
// (SpinTensor::derived) follow from them when they are next read. The fill is
// a signed sum of index reorderings, so it commutes with linear combinations
// and with products by factors unchanged by those reorderings (the
// denominators): the derived blocks are neither filled nor computed here.
void Amplitudes::axpy(double alpha, const Amplitudes& x) {
  each_pair(*this, x, [&](SpinTensor& a, const SpinTensor& b) {
    for (const auto& k : a.computed_keys()) {
      auto& ad = a.write_block(k).data();
      const auto& bd = b.block(k).data();
      for (std::size_t i = 0; i < ad.size(); ++i) ad[i] += alpha * bd[i];
    }
  });
}

void Amplitudes::multiply(const Amplitudes& f) {
  each_pair(*this, f, [&](SpinTensor& a, const SpinTensor& b) {
    for (const auto& k : a.computed_keys()) {
      auto& ad = a.write_block(k).data();
      const auto& bd = b.block(k).data();
      for (std::size_t i = 0; i < ad.size(); ++i) ad[i] *= bd[i];
    }
  });
}

void Amplitudes::multiply_and_difference(const Amplitudes& f, const Amplitudes& x, Amplitudes& d) {
  auto step = [&](SpinTensor& a, const SpinTensor& fa, const SpinTensor& xa, SpinTensor& da) {
    for (const auto& k : a.computed_keys()) {
      auto& ad = a.write_block(k).data();
      auto& dd = da.write_block(k).data();
      const auto& fd = fa.block(k).data();
      const auto& xd = xa.block(k).data();
      for (std::size_t i = 0; i < ad.size(); ++i) {
        ad[i] *= fd[i];
        dd[i] = ad[i] - xd[i];
      }
    }
  };
  step(t1, f.t1, x.t1, d.t1);
  step(t2, f.t2, x.t2, d.t2);
  if (t3) step(*t3, *f.t3, *x.t3, *d.t3);
}

void Amplitudes::combine(const std::vector<double>& c, const std::vector<const Amplitudes*>& x) {
  auto tensors = [](auto& a) {
    std::vector<decltype(&a.t1)> v{&a.t1, &a.t2};
    if (a.t3) v.push_back(&*a.t3);
    return v;
  };
  const auto out = tensors(*this);
  std::vector<std::vector<const SpinTensor*>> in;
  for (const Amplitudes* a : x) in.push_back(tensors(*a));
  for (std::size_t n = 0; n < out.size(); ++n)
    for (const auto& k : out[n]->computed_keys()) {
      std::vector<const double*> src;
      for (const auto& a : in) src.push_back(a[n]->block(k).data().data());
      auto& o = out[n]->write_block(k).data();
      // In chunks that stay in cache, so that each x[i] is read once and the
      // loops vectorise.
      constexpr std::size_t kChunk = 1024;
      for (std::size_t first = 0; first < o.size(); first += kChunk) {
        const std::size_t last = std::min(o.size(), first + kChunk);
        for (std::size_t i = first; i < last; ++i) o[i] = 0;
        for (std::size_t j = 0; j < src.size(); ++j)
          for (std::size_t i = first; i < last; ++i) o[i] += c[j] * src[j][i];
      }
    }
}

double Amplitudes::dot(const Amplitudes& o) const { return dots({&o})[0]; }

std::vector<double> Amplitudes::dots(const std::vector<const Amplitudes*>& others) const {
  std::vector<double> s(others.size(), 0.0);
  auto add = [&](const SpinTensor& x, auto member) {
    std::vector<const SpinTensor*> y;
    for (const Amplitudes* o : others) y.push_back(member(*o));
    const std::vector<double> d = x.dots(y);
    for (std::size_t j = 0; j < d.size(); ++j) s[j] += d[j];
  };
  add(t1, [](const Amplitudes& a) { return &a.t1; });
  add(t2, [](const Amplitudes& a) { return &a.t2; });
  bool all_t3 = t3.has_value();
  for (const Amplitudes* o : others) all_t3 = all_t3 && o->t3.has_value();
  if (all_t3) add(*t3, [](const Amplitudes& a) { return &*a.t3; });
  return s;
}

double Amplitudes::norm2() const { return std::sqrt(dot(*this)); }

std::int64_t Amplitudes::local_words() const {
  return t1.local_words() + t2.local_words() + (t3 ? t3->local_words() : 0);
}

double Amplitudes::norm2_t3() const { return t3 ? t3->norm2() : 0.0; }

namespace {

// Applies f(denominator, element) to the elements of t's blocks, the
// denominator being e_i + e_j + ... - e_a - e_b - ... of its indices and
// spins: to the computed blocks of amplitudes, whose derived blocks
// (restricted) follow from them when read (the fill commutes with the
// division, see above), or to every block of the denominators themselves
// (a block filled from its partner would not hold denominators).
enum class Blocks { computed, all };
template <class F>
void with_denominators(Amplitudes& t, const MoIntegrals& mo, Blocks which, F&& f) {
  auto spin = [](char c) { return c == 'a' ? 0 : 1; };
  auto each = [&](SpinTensor& x, int nv) {
    for (const auto& key : which == Blocks::all ? x.block_keys() : x.computed_keys()) {
      Tensor& block = which == Blocks::all ? x.block(key) : x.write_block(key);
      block.transform([&](const int* idx, double& v) {
        double d = 0;
        for (int p = 0; p < nv; ++p) d -= mo.eps_vir[spin(key[p])][idx[p]];
        for (int p = nv; p < 2 * nv; ++p) d += mo.eps_occ[spin(key[p])][idx[p]];
        f(d, v);
      });
    }
  };
  each(t.t1, 1);
  each(t.t2, 2);
  if (t.t3) each(*t.t3, 3);
}

}  // namespace

void divide_by_denominators(Amplitudes& t, const MoIntegrals& mo) {
  with_denominators(t, mo, Blocks::computed, [](double d, double& v) { v /= d; });
}

Amplitudes inverse_denominators(const Amplitudes& like, const MoIntegrals& mo) {
  Amplitudes r = Amplitudes::zeros_like(like);
  with_denominators(r, mo, Blocks::all, [](double d, double& v) { v = 1.0 / d; });
  return r;
}

}  // namespace cyclocc::cc
