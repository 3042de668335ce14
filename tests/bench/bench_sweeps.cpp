// Figures for sweeps, side by side in one run; nothing here asserts anything.
//  1. Bayes (TPE) against random search on objectives with known optima, Branin (2-D, minimum
//     0.397887) and Hartmann-6 (6-D, minimum -3.32237): the number of trials each needs to reach
//     the optimum region, median over seeds.
//  2. Hyperband against running every trial to the end, on trials whose learning curves are
//     known (examples/sweeps/branin.py's): GPU-time (epochs run) saved, and whether the best
//     trial still ran to its end.
#include "sweeps/Hyperband.h"
#include "sweeps/SweepSearch.h"

#include <QJsonObject>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <random>
#include <vector>

namespace {

using Objective = std::function<double(const QJsonObject &)>;

double branin(const QJsonObject &p) {
    const double x1 = p[QStringLiteral("x1")].toDouble();
    const double x2 = p[QStringLiteral("x2")].toDouble();
    const double b = 5.1 / (4 * std::numbers::pi * std::numbers::pi);
    const double c = 5 / std::numbers::pi;
    const double t = 1 / (8 * std::numbers::pi);
    return std::pow(x2 - b * x1 * x1 + c * x1 - 6, 2) + 10 * (1 - t) * std::cos(x1) + 10;
}

double hartmann6(const QJsonObject &p) {
    static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
    static const double a[4][6] = {{10, 3, 17, 3.5, 1.7, 8},
                                   {0.05, 10, 17, 0.1, 8, 14},
                                   {3, 3.5, 1.7, 10, 17, 8},
                                   {17, 8, 0.05, 10, 0.1, 14}};
    static const double pm[4][6] = {{1312, 1696, 5569, 124, 8283, 5886},
                                    {2329, 4135, 8307, 3736, 1004, 9991},
                                    {2348, 1451, 3522, 2883, 3047, 6650},
                                    {4047, 8828, 8732, 5743, 1091, 381}};
    double sum = 0;
    for (int i = 0; i < 4; ++i) {
        double inner = 0;
        for (int j = 0; j < 6; ++j) {
            const double x = p[QStringLiteral("x%1").arg(j + 1)].toDouble();
            inner += a[i][j] * std::pow(x - pm[i][j] * 1e-4, 2);
        }
        sum += alpha[i] * std::exp(-inner);
    }
    return -sum;
}

sb::SweepSpec space(sb::SweepSpec::Method method, int dims, double low, double high) {
    sb::SweepSpec spec;
    spec.method = method;
    spec.metric = QStringLiteral("loss");
    for (int d = 0; d < dims; ++d) {
        sb::SweepParameter p;
        p.name = QStringLiteral("x%1").arg(d + 1);
        p.kind = sb::SweepParameter::Kind::Distribution;
        p.distribution = QStringLiteral("uniform");
        p.min = low;
        p.max = high;
        spec.parameters << p;
    }
    return spec;
}

// Trials until the objective first falls below `goal`, or `cap` + 1 when it never does.
int trialsToReach(const sb::SweepSpec &spec, const Objective &f, double goal, quint64 seed,
                  int cap) {
    QList<sb::Observation> seen;
    for (int n = 0; n < cap; ++n) {
        const QJsonObject trial = sb::nextTrial(spec, seed, n, seen);
        const double value = f(trial);
        if (value <= goal)
            return n + 1;
        seen << sb::Observation{trial, value};
    }
    return cap + 1;
}

double median(std::vector<int> values) {
    std::sort(values.begin(), values.end());
    const std::size_t n = values.size();
    return n % 2 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

void compareSearch(const char *name, int dims, double low, double high, const Objective &f,
                   double goal, int seeds, int cap) {
    std::vector<int> bayes;
    std::vector<int> random;
    for (int seed = 1; seed <= seeds; ++seed) {
        bayes.push_back(trialsToReach(space(sb::SweepSpec::Method::Bayes, dims, low, high), f, goal,
                                      seed, cap));
        random.push_back(trialsToReach(space(sb::SweepSpec::Method::Random, dims, low, high), f,
                                       goal, seed, cap));
    }
    const auto missed = [cap](const std::vector<int> &v) {
        return std::count(v.begin(), v.end(), cap + 1);
    };
    const double b = median(bayes);
    const double r = median(random);
    std::printf("%-11s goal f <= %-7g median trials over %d seeds: bayes (TPE) %6.1f, random "
                "%6.1f  -> bayes needs %.2fx the trials of random (%ld and %ld of %d seeds "
                "missed within %d trials)\n",
                name, goal, seeds, b, r, b / r, static_cast<long>(missed(bayes)),
                static_cast<long>(missed(random)), seeds, cap);
}

// The curve branin.py logs for (x1, x2): from start towards the final loss, over `epochs`.
QList<double> braninCurve(double x1, double x2, int epochs, std::mt19937_64 &rng) {
    QJsonObject p{{QStringLiteral("x1"), x1}, {QStringLiteral("x2"), x2}};
    const double final = branin(p);
    const double start = final + 60 + 20 * std::uniform_real_distribution<>(0, 1)(rng);
    QList<double> curve;
    for (int epoch = 0; epoch < epochs; ++epoch)
        curve << final + (start - final) * std::exp(-epoch / 6.0) +
                     std::abs(std::normal_distribution<>(0, 0.02)(rng));
    return curve;
}

// Runs `trials` known curves `parallelism` at a time, one value per tick, with hyperband
// deciding after every tick; returns the values run (GPU-epochs) and whether the best trial
// (lowest final value) ran to its end.
std::pair<long, bool> simulate(const QList<QList<double>> &trials, int parallelism,
                               const sb::Hyperband &hyperband) {
    const qsizetype n = trials.size();
    std::vector<int> progress(n, 0);
    std::vector<bool> stopped(n, false);
    qsizetype next = 0;
    std::vector<qsizetype> running;
    long epochs = 0;
    while (next < n || !running.empty()) {
        while (static_cast<int>(running.size()) < parallelism && next < n)
            running.push_back(next++);
        for (qsizetype t : running) {
            ++progress[t];
            ++epochs;
        }
        QList<sb::TrialCurve> curves;
        for (qsizetype t = 0; t < next; ++t) {
            const bool live = std::find(running.begin(), running.end(), t) != running.end();
            curves << sb::TrialCurve{QString::number(t), live, trials[t].mid(0, progress[t])};
        }
        for (const QString &stop : sb::hyperbandStops(hyperband, false, curves))
            stopped[stop.toInt()] = true;
        std::erase_if(running,
                      [&](qsizetype t) { return stopped[t] || progress[t] >= trials[t].size(); });
    }
    qsizetype best = 0;
    for (qsizetype t = 1; t < n; ++t)
        if (trials[t].last() < trials[best].last())
            best = t;
    return {epochs, !stopped[best]};
}

} // namespace

int main() {
    std::printf("== bayes vs random: trials to reach the optimum region\n");
    compareSearch(
        "Branin", 2, 0, 1,
        [](const QJsonObject &p) {
            // Branin's domain, x1 in [-5, 10] and x2 in [0, 15], from the unit square.
            return branin({{QStringLiteral("x1"), -5 + 15 * p[QStringLiteral("x1")].toDouble()},
                           {QStringLiteral("x2"), 15 * p[QStringLiteral("x2")].toDouble()}});
        },
        0.5, 21, 400);
    compareSearch("Hartmann-6", 6, 0, 1, hartmann6, -2.8, 11, 400);

    std::printf("== hyperband (min_iter 3, eta 3) vs every trial to the end\n");
    sb::Hyperband hyperband;
    hyperband.bands = {3, 9, 27};
    hyperband.eta = 3;
    const int epochs = 30;
    for (int parallelism : {4, 8}) {
        long saved = 0;
        long full = 0;
        int bestKept = 0;
        const int sweeps = 20;
        const int trialsPerSweep = 40;
        for (int s = 0; s < sweeps; ++s) {
            std::mt19937_64 rng(1000 + s);
            QList<QList<double>> trials;
            for (int t = 0; t < trialsPerSweep; ++t)
                trials << braninCurve(std::uniform_real_distribution<>(-5, 10)(rng),
                                      std::uniform_real_distribution<>(0, 15)(rng), epochs, rng);
            const auto [run, kept] = simulate(trials, parallelism, hyperband);
            full += static_cast<long>(trials.size()) * epochs;
            saved += static_cast<long>(trials.size()) * epochs - run;
            bestKept += kept;
        }
        std::printf("%d sweeps of %d trials x %d epochs, %d at a time: hyperband ran %ld of %ld "
                    "GPU-epochs, saving %.1f%%; the best trial ran to its end in %d of %d sweeps\n",
                    sweeps, trialsPerSweep, epochs, parallelism, full - saved, full,
                    100.0 * static_cast<double>(saved) / static_cast<double>(full), bestKept,
                    sweeps);
    }
    return 0;
}
