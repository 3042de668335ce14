<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>QObject</name>
    <message>
        <source>history: busy (blue), memory (purple), 10 min</source>
        <translation>历史：繁忙度（蓝）、内存（紫），10 分钟</translation>
    </message>
    <message>
        <source>GPUs: %1</source>
        <translation>GPU：%1</translation>
    </message>
    <message>
        <source>Connecting to %1…</source>
        <translation>正在连接 %1…</translation>
    </message>
    <message>
        <source>Connected; host key %1.</source>
        <translation>已连接；主机密钥 %1。</translation>
    </message>
    <message>
        <source>Reached. Its host key %1 is not trusted yet: you will be asked when the node is added.</source>
        <translation>可以连通。其主机密钥 %1 尚未受信任：添加该节点时会询问你。</translation>
    </message>
    <message>
        <source>Add node</source>
        <translation>添加节点</translation>
    </message>
    <message>
        <source>Edit node</source>
        <translation>编辑节点</translation>
    </message>
    <message>
        <source>ssh-agent, then ~/.ssh/id_ed25519, id_ecdsa, id_rsa</source>
        <translation>ssh-agent，然后是 ~/.ssh/id_ed25519、id_ecdsa、id_rsa</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Key file</source>
        <translation>密钥文件</translation>
    </message>
    <message>
        <source>[user@]bastion[:port]</source>
        <translation>[用户@]跳板机[:端口]</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Port</source>
        <translation>端口</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>ProxyJump</source>
        <translation>ProxyJump</translation>
    </message>
    <message>
        <source>Sample every</source>
        <translation>采样间隔</translation>
    </message>
    <message>
        <source>Test connection</source>
        <translation>测试连接</translation>
    </message>
    <message>
        <source>A node needs a host.</source>
        <translation>节点需要一个主机。</translation>
    </message>
    <message>
        <source>There is already a node named %1.</source>
        <translation>已有名为 %1 的节点。</translation>
    </message>
    <message>
        <source>not available: the image has no sh</source>
        <translation>不可用：镜像中没有 sh</translation>
    </message>
    <message>
        <source>not available: %1</source>
        <translation>不可用：%1</translation>
    </message>
    <message>
        <source>not available: the sampling script printed no sample (exit code %1): %2</source>
        <translation>不可用：采样脚本没有输出样本（退出码 %1）：%2</translation>
    </message>
    <message>
        <source>not available: the image has no nvidia-smi</source>
        <translation>不可用：镜像中没有 nvidia-smi</translation>
    </message>
    <message>
        <source>run %1 (%2) %3</source>
        <translation>运行 %1（%2）%3</translation>
    </message>
    <message>
        <source>SM %1%</source>
        <translation>SM %1%</translation>
    </message>
    <message>
        <source>CPU %1%</source>
        <translation>CPU %1%</translation>
    </message>
    <message>
        <source>RSS %1 GiB</source>
        <translation>常驻内存 %1 GiB</translation>
    </message>
    <message>
        <source>Signalbox run %1 (click to open its curves)</source>
        <translation>Signalbox 运行 %1（点击打开其曲线）</translation>
    </message>
    <message>
        <source>pid %1 · %2</source>
        <translation>pid %1 · %2</translation>
    </message>
    <message>
        <source>owner not visible</source>
        <translation>看不到所有者</translation>
    </message>
    <message>
        <source>GPU memory %1</source>
        <translation>GPU 显存 %1</translation>
    </message>
    <message>
        <source>SM %1 · memory bandwidth %2</source>
        <translation>SM %1 · 显存带宽 %2</translation>
    </message>
    <message>
        <source>resident %1 GiB</source>
        <translation>常驻内存 %1 GiB</translation>
    </message>
    <message>
        <source>running for %1</source>
        <translation>已运行 %1</translation>
    </message>
    <message>
        <source>reserved for %1</source>
        <translation>已为 %1 预留</translation>
    </message>
</context>
<context>
    <name>main</name>
    <message>
        <source>The demo needs python3 and examples/train_mlp.py; neither run started.</source>
        <translation>演示需要 python3 和 examples/train_mlp.py；两个运行都未启动。</translation>
    </message>
    <message>
        <source>The embedded collector could not start:
%1</source>
        <translation>内嵌采集器无法启动：
%1</translation>
    </message>
    <message>
        <source>Sweep not started: %1</source>
        <translation>超参数搜索未启动：%1</translation>
    </message>
    <message>
        <source>TensorBoard logdir: %1</source>
        <translation>TensorBoard 日志目录：%1</translation>
    </message>
    <message>
        <source>--project: %1</source>
        <translation>--project：%1</translation>
    </message>
</context>
<context>
    <name>sb::AudioView</name>
    <message>
        <source>Play</source>
        <translation>播放</translation>
    </message>
    <message>
        <source>Save as WAV…</source>
        <translation>另存为 WAV…</translation>
    </message>
    <message>
        <source>Save the clip</source>
        <translation>保存音频片段</translation>
    </message>
    <message>
        <source>The clip was not saved</source>
        <translation>音频片段未保存</translation>
    </message>
    <message>
        <source>cannot fetch it: %1</source>
        <translation>无法获取：%1</translation>
    </message>
    <message>
        <source>cannot play it: %1</source>
        <translation>无法播放：%1</translation>
    </message>
    <message>
        <source>cannot play it: a WAV of encoding %1 (only PCM and float are played)</source>
        <translation>无法播放：编码为 %1 的 WAV（仅支持 PCM 和浮点）</translation>
    </message>
    <message>
        <source>cannot play it: %1-bit samples of encoding %2</source>
        <translation>无法播放：编码 %2 的 %1 位采样</translation>
    </message>
    <message>
        <source>cannot play it: this computer has no sound device</source>
        <translation>无法播放：本机没有声音设备</translation>
    </message>
    <message>
        <source>cannot play it: the sound device does not take %1 Hz, %2 channels</source>
        <translation>无法播放：声音设备不支持 %1 Hz、%2 声道</translation>
    </message>
    <message>
        <source>cannot play it: the sound device failed</source>
        <translation>无法播放：声音设备出错</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
</context>
<context>
    <name>sb::ClusterGpuWatch</name>
    <message>
        <source>it is no longer running</source>
        <translation>它已不在运行</translation>
    </message>
</context>
<context>
    <name>sb::CurveChart</name>
    <message>
        <source>and %1 more</source>
        <translation>以及另外 %1 个</translation>
    </message>
    <message>
        <source>Log y</source>
        <translation>对数 y 轴</translation>
    </message>
    <message>
        <source>Full width</source>
        <translation>占满整行</translation>
    </message>
    <message>
        <source>Pin to the top</source>
        <translation>置顶</translation>
    </message>
    <message>
        <source>Lock the y range</source>
        <translation>锁定 y 轴范围</translation>
    </message>
    <message>
        <source>Fit to the data (right-click)</source>
        <translation>适应数据（右键单击）</translation>
    </message>
    <message>
        <source>This chart&apos;s options</source>
        <translation>此图表的选项</translation>
    </message>
    <message>
        <source>Export as image (PNG, SVG)…</source>
        <translation>导出为图片（PNG、SVG）…</translation>
    </message>
    <message>
        <source>An image from 50 to 20,000 pixels a side, please</source>
        <translation>图片每边需在 50 到 20,000 像素之间</translation>
    </message>
    <message>
        <source>Exported by Signalbox</source>
        <translation>由 Signalbox 导出</translation>
    </message>
    <message>
        <source>Could not write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>Nothing to draw: every value here is NaN or infinite</source>
        <translation>无可绘制：此处每个值都是 NaN 或无穷大</translation>
    </message>
    <message>
        <source>Log x</source>
        <translation>对数 x</translation>
    </message>
    <message>
        <source>Draw here too</source>
        <translation>也画在这里</translation>
    </message>
    <message>
        <source>No other metric is charted</source>
        <translation>没有其他已绘制的指标</translation>
    </message>
</context>
<context>
    <name>sb::CurvesView</name>
    <message>
        <source>All statuses (%1)</source>
        <translation>全部状态（%1）</translation>
    </message>
    <message>
        <source>Show its job and output</source>
        <translation>显示其作业和输出</translation>
    </message>
    <message>
        <source>Metrics</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>Step</source>
        <translation>步数</translation>
    </message>
    <message>
        <source>Relative time (s)</source>
        <translation>相对时间（秒）</translation>
    </message>
    <message>
        <source>Wall time</source>
        <translation>墙上时间</translation>
    </message>
    <message>
        <source>Log y</source>
        <translation>对数 y 轴</translation>
    </message>
    <message>
        <source>Open TensorBoard logdir…</source>
        <translation>打开 TensorBoard 日志目录…</translation>
    </message>
    <message>
        <source>Follow the event files of a logdir on this computer or on a node</source>
        <translation>跟踪本机或某节点上日志目录中的事件文件</translation>
    </message>
    <message>
        <source>Reset zoom</source>
        <translation>重置缩放</translation>
    </message>
    <message>
        <source>Fit every chart to its data (or right-click a chart)</source>
        <translation>让每个图表适应其数据（或右键单击图表）</translation>
    </message>
    <message>
        <source>Smoothing</source>
        <translation>平滑</translation>
    </message>
    <message>
        <source>X axis</source>
        <translation>X 轴</translation>
    </message>
    <message>
        <source>&lt;h3&gt;No curves yet&lt;/h3&gt;&lt;p&gt;Log from a training script with the Python client (standard library only):&lt;/p&gt;&lt;pre&gt;import signalbox
signalbox.init(config={&quot;lr&quot;: 0.01})
signalbox.log({&quot;loss&quot;: loss}, step=step)&lt;/pre&gt;&lt;p&gt;and run it with&lt;/p&gt;&lt;pre&gt;PYTHONPATH=%2 SIGNALBOX_COLLECTOR=%1 python3 train.py&lt;/pre&gt;&lt;p&gt;Runs started from the Jobs tab get both, and their metric lines (&lt;code&gt;@signalbox {&quot;step&quot;: 1, &quot;loss&quot;: 0.5}&lt;/code&gt;) are read from their output. TensorBoard event files: File ▸ Open TensorBoard logdir.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;还没有曲线&lt;/h3&gt;&lt;p&gt;在训练脚本中用 Python 客户端记录（仅需标准库）：&lt;/p&gt;&lt;pre&gt;import signalbox
signalbox.init(config={&quot;lr&quot;: 0.01})
signalbox.log({&quot;loss&quot;: loss}, step=step)&lt;/pre&gt;&lt;p&gt;并这样运行：&lt;/p&gt;&lt;pre&gt;PYTHONPATH=%2 SIGNALBOX_COLLECTOR=%1 python3 train.py&lt;/pre&gt;&lt;p&gt;从“作业”页启动的运行会自动获得这两项，其输出中的指标行（&lt;code&gt;@signalbox {&quot;step&quot;: 1, &quot;loss&quot;: 0.5}&lt;/code&gt;）也会被读取。TensorBoard 事件文件：文件 ▸ 打开 TensorBoard 日志目录。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Export charts</source>
        <translation>导出图表</translation>
    </message>
    <message>
        <source>PNG images (*.png)</source>
        <translation>PNG 图像 (*.png)</translation>
    </message>
    <message>
        <source>Could not write %1</source>
        <translation>无法写入 %1</translation>
    </message>
    <message>
        <source>Export raw points</source>
        <translation>导出原始数据点</translation>
    </message>
    <message>
        <source>Filter with a regular expression</source>
        <translation>用正则表达式筛选</translation>
    </message>
    <message>
        <source>Change its colour…</source>
        <translation>更改其颜色…</translation>
    </message>
    <message>
        <source>Colour of %1</source>
        <translation>%1 的颜色</translation>
    </message>
    <message>
        <source>Legend</source>
        <translation>图例</translation>
    </message>
    <message>
        <source>Which colour is which run, above the charts</source>
        <translation>在图表上方显示各运行对应的颜色</translation>
    </message>
    <message>
        <source>&lt;h3&gt;No curves for the runs shown&lt;/h3&gt;&lt;p&gt;Check a run in the table, or change the filter.&lt;/p&gt;</source>
        <translation>&lt;h3&gt;所显示的运行没有曲线&lt;/h3&gt;&lt;p&gt;在表格中勾选一个运行，或更改筛选条件。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>and %1 more</source>
        <translation>以及另外 %1 个</translation>
    </message>
    <message>
        <source>Compare their configs…</source>
        <translation>比较它们的配置…</translation>
    </message>
    <message>
        <source>Select two runs or more in the table to compare their configs</source>
        <translation>在表格中选择两个或更多运行以比较其配置</translation>
    </message>
    <message>
        <source>How %1 runs differ</source>
        <translation>%1 个运行的差异</translation>
    </message>
    <message>
        <source>(none)</source>
        <translation>（无）</translation>
    </message>
    <message>
        <source>Their configs are the same (%1 keys).</source>
        <translation>它们的配置相同（%1 个键）。</translation>
    </message>
    <message>
        <source>%1 more keys are the same in all of them.</source>
        <translation>另有 %1 个键在所有运行中相同。</translation>
    </message>
    <message>
        <source>1 more key is the same in all of them.</source>
        <translation>另有 1 个键在所有运行中相同。</translation>
    </message>
    <message>
        <source>EMA</source>
        <translation>EMA</translation>
    </message>
    <message>
        <source>Running average</source>
        <translation>移动平均</translation>
    </message>
    <message>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <source>Charts as PNG…</source>
        <translation>图表导出为 PNG…</translation>
    </message>
    <message>
        <source>Raw points, CSV or JSON Lines…</source>
        <translation>原始数据点，CSV 或 JSON Lines…</translation>
    </message>
    <message>
        <source>CSV, one point a line (*.csv)</source>
        <translation>CSV，每行一个数据点 (*.csv)</translation>
    </message>
    <message>
        <source>JSON Lines (*.jsonl)</source>
        <translation>JSON Lines (*.jsonl)</translation>
    </message>
    <message>
        <source>Show its group&apos;s runs one by one, or as one</source>
        <translation>逐个显示其所在组的运行，或合为一条</translation>
    </message>
    <message>
        <source>Draw runs as groups: the mean or median of each group&apos;s runs, with a band for their spread</source>
        <translation>按组绘制运行：每组运行的均值或中位数，并以色带表示其离散程度</translation>
    </message>
    <message>
        <source>No groups</source>
        <translation>不分组</translation>
    </message>
    <message>
        <source>By config keys…</source>
        <translation>按配置键…</translation>
    </message>
    <message>
        <source>By name pattern…</source>
        <translation>按名称模式…</translation>
    </message>
    <message>
        <source>By sweep</source>
        <translation>按扫描</translation>
    </message>
    <message>
        <source>Line</source>
        <translation>中心线</translation>
    </message>
    <message>
        <source>Mean</source>
        <translation>均值</translation>
    </message>
    <message>
        <source>Median</source>
        <translation>中位数</translation>
    </message>
    <message>
        <source>Band</source>
        <translation>色带</translation>
    </message>
    <message>
        <source>± standard deviation</source>
        <translation>± 标准差</translation>
    </message>
    <message>
        <source>± standard error</source>
        <translation>± 标准误</translation>
    </message>
    <message>
        <source>Minimum to maximum</source>
        <translation>最小值到最大值</translation>
    </message>
    <message>
        <source>No band</source>
        <translation>无色带</translation>
    </message>
    <message>
        <source>Group by config keys</source>
        <translation>按配置键分组</translation>
    </message>
    <message>
        <source>%1  (1 value)</source>
        <translation>%1  (1 个取值)</translation>
    </message>
    <message>
        <source>%1  (%2 values)</source>
        <translation>%1  (%2 个取值)</translation>
    </message>
    <message>
        <source>Runs with the same values of the ticked keys are one group (leave the seed unticked):</source>
        <translation>所勾选键取值相同的运行归为一组（不要勾选随机种子）：</translation>
    </message>
    <message>
        <source>Group by name pattern</source>
        <translation>按名称模式分组</translation>
    </message>
    <message>
        <source>A regular expression on run names; its first group in parentheses names the group (the whole match without one):</source>
        <translation>匹配运行名称的正则表达式；第一个括号分组即为组名（没有分组时取整个匹配）：</translation>
    </message>
    <message>
        <source>Not a regular expression: %1</source>
        <translation>不是有效的正则表达式：%1</translation>
    </message>
    <message>
        <source>Group</source>
        <translation>分组</translation>
    </message>
    <message>
        <source>Grouped: %1</source>
        <translation>已分组：%1</translation>
    </message>
    <message>
        <source>%1 (%2 runs)</source>
        <translation>%1（%2 个运行）</translation>
    </message>
    <message>
        <source>%1: as one</source>
        <translation>%1：合为一条</translation>
    </message>
    <message>
        <source>Tags and note…</source>
        <translation>标签与备注…</translation>
    </message>
    <message>
        <source>Last</source>
        <translation>最新</translation>
    </message>
    <message>
        <source>Min</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>Max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>Best</source>
        <translation>最佳</translation>
    </message>
    <message>
        <source>The value of each metric in the table: its last, smallest or largest, or its best (smallest for losses, errors and times, largest otherwise)</source>
        <translation>表格中每个指标显示的值：最新值、最小值、最大值，或最佳值（损失、误差和时间取最小，其余取最大）</translation>
    </message>
    <message>
        <source>Tags and note of %1</source>
        <translation>%1 的标签与备注</translation>
    </message>
    <message>
        <source>baseline, ablation, paper</source>
        <translation>基线, 消融, 论文</translation>
    </message>
    <message>
        <source>What this run tried, and what came of it</source>
        <translation>这次运行尝试了什么，结果如何</translation>
    </message>
    <message>
        <source>Tags (comma-separated)</source>
        <translation>标签（逗号分隔）</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>The tags and note were not saved: %1</source>
        <translation>标签与备注未能保存：%1</translation>
    </message>
    <message>
        <source>Export %1</source>
        <translation>导出 %1</translation>
    </message>
    <message>
        <source> px</source>
        <translation> 像素</translation>
    </message>
    <message>
        <source>Width</source>
        <translation>宽度</translation>
    </message>
    <message>
        <source>Height</source>
        <translation>高度</translation>
    </message>
    <message>
        <source>SVG keeps the curves as lines; PNG is drawn at twice the size for sharp print.</source>
        <translation>SVG 将曲线保留为矢量线条；PNG 以两倍尺寸绘制，打印更清晰。</translation>
    </message>
    <message>
        <source>SVG, vector (*.svg)</source>
        <translation>SVG 矢量图 (*.svg)</translation>
    </message>
    <message>
        <source>PNG image (*.png)</source>
        <translation>PNG 图片 (*.png)</translation>
    </message>
    <message>
        <source>Gaussian</source>
        <translation>高斯</translation>
    </message>
    <message>
        <source>TensorBoard&apos;s exponential moving average; a running average over as many points as it weighs; or a centred Gaussian over as many, which does not lag behind the curve</source>
        <translation>TensorBoard 的指数移动平均；覆盖同样多点的滑动平均；或覆盖同样多点、不滞后于曲线的居中高斯平滑</translation>
    </message>
    <message>
        <source>Show %1 more charts (%2 not shown; uncheck metrics in the list to choose)</source>
        <translation>再显示 %1 个图表（%2 个未显示；在列表中取消勾选指标以选择）</translation>
    </message>
    <message>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>Samples</source>
        <translation>样本</translation>
    </message>
    <message>
        <source>What it ran…</source>
        <translation>它运行了什么…</translation>
    </message>
    <message>
        <source>What %1 ran</source>
        <translation>%1 运行了什么</translation>
    </message>
    <message>
        <source>Nothing recorded</source>
        <translation>未记录</translation>
    </message>
    <message>
        <source>Its client recorded no code or environment (record_code=False, or a client from before 0.1).</source>
        <translation>它的客户端没有记录代码或环境（record_code=False，或 0.1 之前的客户端）。</translation>
    </message>
    <message>
        <source>Commit</source>
        <translation>提交</translation>
    </message>
    <message>
        <source>Branch</source>
        <translation>分支</translation>
    </message>
    <message>
        <source>Working tree</source>
        <translation>工作区</translation>
    </message>
    <message>
        <source>clean: the commit is the code</source>
        <translation>干净：代码即该提交</translation>
    </message>
    <message>
        <source>changed since the commit: %1 bytes of diff%2, in the Samples tab at code/diff</source>
        <translation>自该提交以来有改动：差异 %1 字节%2，见“样本”标签页的 code/diff</translation>
    </message>
    <message>
        <source> (cut)</source>
        <translation>（已截断）</translation>
    </message>
    <message>
        <source>Repository</source>
        <translation>仓库</translation>
    </message>
    <message>
        <source>Remote</source>
        <translation>远程</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Directory</source>
        <translation>目录</translation>
    </message>
    <message>
        <source>Python</source>
        <translation>Python</translation>
    </message>
    <message>
        <source>Platform</source>
        <translation>平台</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>Packages</source>
        <translation>软件包</translation>
    </message>
    <message>
        <source>in the Samples tab at environment/packages</source>
        <translation>见“样本”标签页的 environment/packages</translation>
    </message>
    <message>
        <source>changed since the commit (its diff was not recorded)</source>
        <translation>自该提交以来有改动（未记录其差异）</translation>
    </message>
    <message>
        <source>Forked from</source>
        <translation>派生自</translation>
    </message>
    <message>
        <source>%1, its history up to step %2 copied</source>
        <translation>%1，复制了其至第 %2 步的历史</translation>
    </message>
    <message>
        <source>Show them again</source>
        <translation>重新显示</translation>
    </message>
    <message>
        <source>Cannot show the hidden points again: %1</source>
        <translation>无法重新显示隐藏的点：%1</translation>
    </message>
    <message>
        <source>Shown again</source>
        <translation>已重新显示</translation>
    </message>
    <message>
        <source>Restarted at step %1</source>
        <translation>于第 %1 步重启</translation>
    </message>
    <message>
        <source>%1 — hidden: %2 points</source>
        <translation>%1 — 已隐藏：%2 个点</translation>
    </message>
    <message>
        <source>, %1 samples</source>
        <translation>，%1 个样本</translation>
    </message>
    <message>
        <source>What the run had logged at step %1 and later before it restarted</source>
        <translation>运行重启前在第 %1 步及之后记录的内容</translation>
    </message>
    <message>
        <source>What the run had logged after step %1 before it restarted</source>
        <translation>运行重启前在第 %1 步之后记录的内容</translation>
    </message>
    <message>
        <source>Undo this restart: the run&apos;s curves show everything it logged again, both times at the steps it logged twice</source>
        <translation>撤销此次重启：运行的曲线重新显示其记录的全部内容，重复记录的步骤两次都显示</translation>
    </message>
    <message>
        <source>What this restart hid is shown again.</source>
        <translation>此次重启隐藏的内容已重新显示。</translation>
    </message>
    <message>
        <source>Restarted after step %1</source>
        <translation>于第 %1 步之后重启</translation>
    </message>
    <message>
        <source>Filter runs: words, or a query such as config.lr &lt; 1e-3</source>
        <translation>筛选运行：输入词语，或如 config.lr &lt; 1e-3 的查询</translation>
    </message>
    <message>
        <source>Words find the runs whose name, status, host, tags, note or hyperparameters hold them.
A query compares their fields:
  config.lr &lt; 1e-3 and best(val/loss) &lt; 0.5 and tags has &quot;baseline&quot;
  status in (failed, crashed) or val/loss = nan
  start &gt; 7d ago and duration &gt; 2h and config.optimizer ~ &quot;^adam&quot;
Fields: name, status, host, sweep, note, tags, start, end, last_seen, duration, config.KEY, a metric (its last value), last/min/max/best/count/step(METRIC).
Operators: = != &lt; &lt;= &gt; &gt;= ~ (regular expression) !~ has in (…), joined by and, or, not.</source>
        <translation>词语会找出名称、状态、主机、标签、备注或超参数中包含它们的运行。
查询则比较它们的字段：
  config.lr &lt; 1e-3 and best(val/loss) &lt; 0.5 and tags has &quot;baseline&quot;
  status in (failed, crashed) or val/loss = nan
  start &gt; 7d ago and duration &gt; 2h and config.optimizer ~ &quot;^adam&quot;
字段：name、status、host、sweep、note、tags、start、end、last_seen、duration、config.KEY、指标（其最新值）、last/min/max/best/count/step(指标)。
运算符：= != &lt; &lt;= &gt; &gt;= ~（正则表达式）!~ has in (…)，用 and、or、not 连接。</translation>
    </message>
    <message numerus="yes">
        <source>%n more</source>
        <translation>
            <numerusform>另外 %n 个</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <source>Not drawn: %1 (no %2, the x axis)</source>
        <translation>
            <numerusform>未绘制：%1（没有 x 轴指标 %2）</numerusform>
        </translation>
    </message>
    <message>
        <source>Check the runs shown</source>
        <translation>勾选所显示的运行</translation>
    </message>
    <message>
        <source>Uncheck the runs shown</source>
        <translation>取消勾选所显示的运行</translation>
    </message>
    <message>
        <source>Delete…</source>
        <translation>删除…</translation>
    </message>
    <message>
        <source>Delete runs</source>
        <translation>删除运行</translation>
    </message>
    <message>
        <source>Delete</source>
        <translation>删除</translation>
    </message>
    <message>
        <source>The runs were not deleted: %1</source>
        <translation>运行未被删除：%1</translation>
    </message>
    <message>
        <source>Show the archived runs instead of the others</source>
        <translation>显示已归档的运行，而不是其他运行</translation>
    </message>
    <message>
        <source>Archived (%1)</source>
        <translation>已归档（%1）</translation>
    </message>
    <message>
        <source>Archive</source>
        <translation>归档</translation>
    </message>
    <message>
        <source>Bring back from the archive</source>
        <translation>从归档中取回</translation>
    </message>
    <message>
        <source>Not archived: %1</source>
        <translation>未能归档：%1</translation>
    </message>
    <message>
        <source>Delete this run for good?</source>
        <translation>永久删除此运行？</translation>
    </message>
    <message>
        <source>Delete these %1 runs for good?</source>
        <translation>永久删除这 %1 个运行？</translation>
    </message>
    <message>
        <source>1 point</source>
        <translation>1 个数据点</translation>
    </message>
    <message>
        <source>%1 points</source>
        <translation>%1 个数据点</translation>
    </message>
    <message>
        <source>What it logged (%1), its samples, config, tags and note go from the collector, and nothing brings them back.</source>
        <translation>它记录的内容（%1）、样本、配置、标签和备注都将从采集器中删除，且无法恢复。</translation>
    </message>
    <message>
        <source>What they logged (%1), their samples, configs, tags and notes go from the collector, and nothing brings them back.</source>
        <translation>它们记录的内容（%1）、样本、配置、标签和备注都将从采集器中删除，且无法恢复。</translation>
    </message>
    <message>
        <source>Log x</source>
        <translation>对数 x</translation>
    </message>
    <message>
        <source>A log x axis (log-log with Log y); points at x ≤ 0, such as step 0, are not on it. Not for wall time.</source>
        <translation>对数 x 轴（与对数 y 一起即双对数）；x ≤ 0 的点（如第 0 步）不在其上。不适用于挂钟时间。</translation>
    </message>
    <message>
        <source>Layout</source>
        <translation>布局</translation>
    </message>
    <message>
        <source>Charts a row, their height, and zooming them together</source>
        <translation>每行图表数、图表高度，以及一起缩放</translation>
    </message>
    <message>
        <source>Charts a row</source>
        <translation>每行图表数</translation>
    </message>
    <message>
        <source>Chart height</source>
        <translation>图表高度</translation>
    </message>
    <message>
        <source>Small</source>
        <translation>小</translation>
    </message>
    <message>
        <source>Medium</source>
        <translation>中</translation>
    </message>
    <message>
        <source>Large</source>
        <translation>大</translation>
    </message>
    <message>
        <source>Zoom x on every chart together</source>
        <translation>所有图表一起缩放 x</translation>
    </message>
    <message>
        <source>%1: click to fold or unfold</source>
        <translation>%1：点击折叠或展开</translation>
    </message>
    <message>
        <source>Columns</source>
        <translation>列</translation>
    </message>
    <message>
        <source>Put columns away or back (or right-click the header)</source>
        <translation>隐藏或显示列（或右击表头）</translation>
    </message>
    <message>
        <source>Find a column</source>
        <translation>查找列</translation>
    </message>
    <message>
        <source>Views</source>
        <translation>视图</translation>
    </message>
    <message>
        <source>Save the filter, columns, grouping and charts&apos; layout by name, and put them back</source>
        <translation>按名称保存筛选、列、分组和图表布局，并可恢复</translation>
    </message>
    <message>
        <source>A view&apos;s name is 1 to %1 characters</source>
        <translation>视图名称为 1 到 %1 个字符</translation>
    </message>
    <message>
        <source>%1 views are kept at most: delete one first</source>
        <translation>最多保存 %1 个视图：请先删除一个</translation>
    </message>
    <message>
        <source>No saved views yet</source>
        <translation>还没有保存的视图</translation>
    </message>
    <message>
        <source>Save this view as…</source>
        <translation>将此视图另存为…</translation>
    </message>
    <message>
        <source>Save this view</source>
        <translation>保存此视图</translation>
    </message>
    <message>
        <source>Name (a view of that name is replaced):</source>
        <translation>名称（同名视图将被替换）：</translation>
    </message>
    <message>
        <source>Delete the view “%1”</source>
        <translation>删除视图“%1”</translation>
    </message>
    <message>
        <source>Pareto front</source>
        <translation>帕累托前沿</translation>
    </message>
    <message>
        <source>best</source>
        <translation>最佳</translation>
    </message>
    <message>
        <source>last</source>
        <translation>最后</translation>
    </message>
    <message>
        <source>min</source>
        <translation>最小</translation>
    </message>
    <message>
        <source>max</source>
        <translation>最大</translation>
    </message>
    <message>
        <source>Parameter</source>
        <translation>参数</translation>
    </message>
    <message>
        <source>Importance</source>
        <translation>重要性</translation>
    </message>
    <message>
        <source>Correlation</source>
        <translation>相关性</translation>
    </message>
    <message>
        <source>The runs no other run beats on both metrics (each smaller for losses and errors, larger otherwise)</source>
        <translation>两个指标上都没有被其他运行超越的运行（损失和误差越小越好，其他越大越好）</translation>
    </message>
    <message>
        <source>Metric</source>
        <translation>指标</translation>
    </message>
    <message>
        <source>x</source>
        <translation>x</translation>
    </message>
    <message>
        <source>y</source>
        <translation>y</translation>
    </message>
    <message>
        <source>Analysis</source>
        <translation>分析</translation>
    </message>
    <message>
        <source>Importance: how much worse a random forest of 100 trees predicts the metric of runs it did not see once the parameter&apos;s values are shuffled (permutation importance), as a share of all the parameters&apos;.
Correlation: Pearson&apos;s r with the metric (in log10 for a parameter spread over decades); η for a categorical one. Click a row to plot it against the metric.</source>
        <translation>重要性：把某参数的值打乱后，由 100 棵树组成的随机森林对未见过的运行预测该指标会变差多少（置换重要性），占所有参数之和的比例。
相关性：与指标的皮尔逊 r（跨越多个数量级的参数取 log10）；分类参数用 η。点击一行，把它与指标作图。</translation>
    </message>
    <message>
        <source>%1 with %2, %3</source>
        <translation>%1（%2），%3</translation>
    </message>
    <message>
        <source>1 run</source>
        <translation>1 次运行</translation>
    </message>
    <message>
        <source>%1 runs</source>
        <translation>%1 次运行</translation>
    </message>
    <message>
        <source>1 parameter that varies</source>
        <translation>1 个参数有变化</translation>
    </message>
    <message>
        <source>%1 parameters that vary</source>
        <translation>%1 个参数有变化</translation>
    </message>
</context>
<context>
    <name>sb::Duration</name>
    <message>
        <source>%1 d %2</source>
        <translation>%1 天 %2</translation>
    </message>
    <message>
        <source>%1 s</source>
        <translation>%1 秒</translation>
    </message>
    <message>
        <source>%1 min %2 s</source>
        <translation>%1 分 %2 秒</translation>
    </message>
    <message>
        <source>%1 h %2 min</source>
        <translation>%1 小时 %2 分</translation>
    </message>
</context>
<context>
    <name>sb::FleetTable</name>
    <message>
        <source>%1 of %2 GPUs free on %3 node</source>
        <translation>%3 个节点上 %2 块 GPU 中 %1 块空闲</translation>
    </message>
    <message>
        <source>%1 of %2 GPUs free on %3 nodes</source>
        <translation>%3 个节点上 %2 块 GPU 中 %1 块空闲</translation>
    </message>
    <message>
        <source> · %1 unreachable</source>
        <translation> · %1 个无法连接</translation>
    </message>
    <message>
        <source>Double-click a node for its history</source>
        <translation>双击节点查看其历史</translation>
    </message>
    <message>
        <source> · last seen %1</source>
        <translation> · 最后一次见到 %1</translation>
    </message>
    <message>
        <source>connecting…</source>
        <translation>正在连接…</translation>
    </message>
    <message>
        <source>%1 of %2 free</source>
        <translation>%2 块中 %1 块空闲</translation>
    </message>
    <message>
        <source>no GPUs</source>
        <translation>没有 GPU</translation>
    </message>
    <message>
        <source>CPU %1% of %2</source>
        <translation>CPU %1%（%2 核）</translation>
    </message>
    <message>
        <source>memory %1 / %2 GiB</source>
        <translation>内存 %1 / %2 GiB</translation>
    </message>
    <message>
        <source>load %1</source>
        <translation>负载 %1</translation>
    </message>
    <message>
        <source>GPUs: %1</source>
        <translation>GPU：%1</translation>
    </message>
    <message>
        <source>free</source>
        <translation>空闲</translation>
    </message>
</context>
<context>
    <name>sb::HistogramView</name>
    <message>
        <source>no histograms yet</source>
        <translation>还没有直方图</translation>
    </message>
</context>
<context>
    <name>sb::ImageView</name>
    <message>
        <source>Click to see it at full size</source>
        <translation>点击查看原尺寸</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>加载中…</translation>
    </message>
</context>
<context>
    <name>sb::ImageViewer</name>
    <message>
        <source>Fit</source>
        <translation>适应窗口</translation>
    </message>
    <message>
        <source>100%</source>
        <translation>100%</translation>
    </message>
    <message>
        <source>Zoom out</source>
        <translation>缩小</translation>
    </message>
    <message>
        <source>Zoom in</source>
        <translation>放大</translation>
    </message>
    <message>
        <source>It cannot be shown: %1</source>
        <translation>无法显示：%1</translation>
    </message>
    <message>
        <source>loading…</source>
        <translation>加载中…</translation>
    </message>
    <message>
        <source>%1 × %2 pixels, %3</source>
        <translation>%1 × %2 像素，%3</translation>
    </message>
    <message>
        <source>fitted</source>
        <translation>适应窗口</translation>
    </message>
</context>
<context>
    <name>sb::JobBackend</name>
    <message>
        <source>No job %1 here</source>
        <translation>这里没有作业 %1</translation>
    </message>
    <message>
        <source>%1 runs trials one job each, not many in one</source>
        <translation>%1 每个试验运行一个作业，不能多个合在一个作业中</translation>
    </message>
    <message>
        <source>%1 cannot read the GPUs of job %2 where it runs</source>
        <translation>%1 无法在作业 %2 运行的地方读取其 GPU</translation>
    </message>
    <message>
        <source>%1 cannot say what %2 offers</source>
        <translation>%1 无法说明 %2 提供什么</translation>
    </message>
    <message>
        <source>%1 shows no preview</source>
        <translation>%1 没有预览</translation>
    </message>
</context>
<context>
    <name>sb::JobState</name>
    <message>
        <source>queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>succeeded</source>
        <translation>已成功</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>已失败</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
</context>
<context>
    <name>sb::JobsModel</name>
    <message>
        <source>1 job</source>
        <translation>1 个作业</translation>
    </message>
    <message>
        <source>%1 jobs</source>
        <translation>%1 个作业</translation>
    </message>
    <message>
        <source>Sweep %1: %2; the Sweeps tab follows it</source>
        <translation>超参数搜索 %1：%2；“超参数搜索”页跟踪其进展</translation>
    </message>
    <message>
        <source>%1 (sweep, %2)</source>
        <translation>%1（超参数搜索，%2）</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Backend</source>
        <translation>后端</translation>
    </message>
    <message>
        <source>Node</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Submitted</source>
        <translation>提交时间</translation>
    </message>
    <message>
        <source>Waited</source>
        <translation>等待</translation>
    </message>
    <message>
        <source>Elapsed</source>
        <translation>已用时间</translation>
    </message>
    <message>
        <source>Exit</source>
        <translation>退出码</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
</context>
<context>
    <name>sb::JobsView</name>
    <message>
        <source>&lt;p&gt;&lt;b&gt;No runs yet&lt;/b&gt;&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;new&quot;&gt;New run…&lt;/a&gt; (Ctrl+N) starts a script on this computer, on an SSH node&apos;s free GPUs or on a cluster, and follows its output here.&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;还没有运行&lt;/b&gt;&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;new&quot;&gt;新建运行…&lt;/a&gt;（Ctrl+N）可在本机、SSH 节点的空闲 GPU 上或集群上启动脚本，并在此跟踪其输出。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;No Kubernetes cluster: clusters come from the kubeconfig&apos;s current context (%1; &lt;code&gt;--cluster CONTEXT&lt;/code&gt; picks others).&lt;/p&gt;</source>
        <translation>&lt;p&gt;没有 Kubernetes 集群：集群取自 kubeconfig 的当前上下文（%1；&lt;code&gt;--cluster CONTEXT&lt;/code&gt; 可选择其他上下文）。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>&lt;p&gt;No Slurm cluster: name one under &lt;code&gt;slurm_clusters:&lt;/code&gt; in %1, with its login node among the config&apos;s nodes.&lt;/p&gt;</source>
        <translation>&lt;p&gt;没有 Slurm 集群：在 %1 的 &lt;code&gt;slurm_clusters:&lt;/code&gt; 下命名一个，其登录节点须在配置的节点之中。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>the config</source>
        <translation>配置文件</translation>
    </message>
    <message>
        <source>Select a run to follow its output</source>
        <translation>选择一个运行以跟踪其输出</translation>
    </message>
    <message>
        <source>New run…</source>
        <translation>新建运行…</translation>
    </message>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Resubmit…</source>
        <translation>重新提交…</translation>
    </message>
    <message>
        <source>Describe</source>
        <translation>详情</translation>
    </message>
    <message>
        <source>All jobs on the clusters (every user&apos;s)</source>
        <translation>集群上的所有作业（所有用户的）</translation>
    </message>
    <message>
        <source>Also jobs not submitted from Signalbox: every job of a Kubernetes namespace, every user&apos;s on a Slurm cluster (your own are always shown)</source>
        <translation>也显示并非从 Signalbox 提交的作业：Kubernetes 命名空间中的所有作业、Slurm 集群上所有用户的作业（你自己的作业总会显示）</translation>
    </message>
    <message>
        <source>Filter (name, state, node, GPUs, command)</source>
        <translation>筛选（名称、状态、节点、GPU、命令）</translation>
    </message>
    <message>
        <source>Remove</source>
        <translation>移除</translation>
    </message>
    <message>
        <source>Remove this ended run from the history, with its saved output (Delete); its curves stay</source>
        <translation>从历史中移除这个已结束的运行及其保存的输出（Delete）；其曲线保留</translation>
    </message>
    <message>
        <source>No run matches “%1”.</source>
        <translation>没有与“%1”匹配的运行。</translation>
    </message>
    <message>
        <source>Stop trial</source>
        <translation>停止试验</translation>
    </message>
    <message>
        <source>Run %1</source>
        <translation>运行 %1</translation>
    </message>
    <message>
        <source>Asking %1…</source>
        <translation>正在询问 %1…</translation>
    </message>
    <message>
        <source>A sweep: select one of its jobs to follow its output</source>
        <translation>这是一个超参数搜索：选择其中一个作业以跟踪其输出</translation>
    </message>
    <message>
        <source>No output yet: %1</source>
        <translation>尚无输出：%1</translation>
    </message>
    <message>
        <source>waiting to start</source>
        <translation>等待启动</translation>
    </message>
    <message>
        <source>No output yet</source>
        <translation>尚无输出</translation>
    </message>
    <message>
        <source>It printed nothing</source>
        <translation>没有任何输出</translation>
    </message>
    <message>
        <source>It printed nothing (%1)</source>
        <translation>没有任何输出（%1）</translation>
    </message>
    <message>
        <source>No %1 backend to run this on</source>
        <translation>没有可运行此任务的 %1 后端</translation>
    </message>
    <message>
        <source>Everything known about the run; on a cluster also its conditions, pods and events (Ctrl+I)</source>
        <translation>关于该运行的全部信息；在集群上还包括其状况、Pod 和事件（Ctrl+I）</translation>
    </message>
    <message>
        <source>Stop the run, or cancel it while it waits (Ctrl+.)</source>
        <translation>停止该运行，或在其等待时取消（Ctrl+.）</translation>
    </message>
    <message>
        <source>A new run from this one&apos;s settings, to edit first (Ctrl+R)</source>
        <translation>以此运行的设置新建一个运行，可先编辑（Ctrl+R）</translation>
    </message>
    <message>
        <source>The lines a script prints for its metrics (@signalbox {...}) are stored as metrics; check to see them among its output</source>
        <translation>脚本为指标打印的行（@signalbox {...}）已作为指标保存；勾选后可在输出中查看它们</translation>
    </message>
    <message>
        <source>Metric lines shown: %L1</source>
        <translation>已显示指标行：%L1</translation>
    </message>
    <message>
        <source>Metric lines hidden: %L1 (stored as metrics)</source>
        <translation>已隐藏指标行：%L1（已作为指标保存）</translation>
    </message>
</context>
<context>
    <name>sb::KubeBackend</name>
    <message>
        <source>no cluster named &quot;%1&quot;</source>
        <translation>没有名为“%1”的集群</translation>
    </message>
    <message>
        <source>deleted from the cluster</source>
        <translation>已从集群中删除</translation>
    </message>
    <message>
        <source>no job template named &quot;%1&quot; in the config</source>
        <translation>配置中没有名为“%1”的作业模板</translation>
    </message>
    <message>
        <source>a run on a cluster needs a container image</source>
        <translation>集群上的运行需要一个容器镜像</translation>
    </message>
    <message>
        <source>a run needs a command</source>
        <translation>运行需要一条命令</translation>
    </message>
    <message>
        <source>the last manifest must be the Job</source>
        <translation>最后一个清单必须是 Job</translation>
    </message>
    <message>
        <source>the Job needs metadata.name</source>
        <translation>Job 需要 metadata.name</translation>
    </message>
    <message>
        <source>submitting</source>
        <translation>正在提交</translation>
    </message>
    <message>
        <source>refused by the cluster: %1</source>
        <translation>被集群拒绝：%1</translation>
    </message>
    <message>
        <source>no job %1 on any cluster</source>
        <translation>任何集群上都没有作业 %1</translation>
    </message>
    <message>
        <source>%1 has ended already</source>
        <translation>%1 已经结束</translation>
    </message>
    <message>
        <source>a job of trials needs one script per trial</source>
        <translation>含多个试验的作业需要每个试验一个脚本</translation>
    </message>
    <message>
        <source>job %1 has no running pod</source>
        <translation>作业 %1 没有运行中的 Pod</translation>
    </message>
    <message>
        <source>The manifest</source>
        <translation>清单</translation>
    </message>
    <message>
        <source>The manifest: the last document must be the Job (kind: Job)</source>
        <translation>清单：最后一个文档必须是 Job（kind: Job）</translation>
    </message>
    <message>
        <source>The API server refused it: %1</source>
        <translation>API 服务器拒绝了它：%1</translation>
    </message>
</context>
<context>
    <name>sb::KubeCode</name>
    <message>
        <source>the code of %1 compresses to %2, more than a ConfigMap holds (%3); set up an object_store in the config for larger code</source>
        <translation>%1 的代码压缩后为 %2，超过 ConfigMap 的容量（%3）；较大的代码请在配置中设置 object_store</translation>
    </message>
    <message>
        <source>%1, %2, packed at %3 into %4</source>
        <translation>%1，%2，已打包至 %3，存于 %4</translation>
    </message>
    <message>
        <source>1 file</source>
        <translation>1 个文件</translation>
    </message>
    <message>
        <source>%1 files</source>
        <translation>%1 个文件</translation>
    </message>
    <message>
        <source>the object store</source>
        <translation>对象存储</translation>
    </message>
    <message>
        <source>a ConfigMap</source>
        <translation>ConfigMap</translation>
    </message>
    <message>
        <source>the code for %1 was not packed here</source>
        <translation>%1 的代码没有在这里打包</translation>
    </message>
    <message>
        <source>ConfigMap %1: %2</source>
        <translation>ConfigMap %1：%2</translation>
    </message>
</context>
<context>
    <name>sb::KubeRunPage</name>
    <message>
        <source>&quot;%1&quot; is not an exit code (1 to 255)</source>
        <translation>“%1”不是退出码（1 到 255）</translation>
    </message>
    <message>
        <source>also set TF_CONFIG (TensorFlow)</source>
        <translation>同时设置 TF_CONFIG（TensorFlow）</translation>
    </message>
    <message>
        <source>none</source>
        <translation>无</translation>
    </message>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>keep</source>
        <translation>保留</translation>
    </message>
    <message>
        <source>Manifest</source>
        <translation>清单</translation>
    </message>
    <message>
        <source>Node selector, tolerations, priority class and service account from job_templates in the config</source>
        <translation>节点选择器、容忍度、优先级类和服务账号取自配置中的 job_templates</translation>
    </message>
    <message>
        <source>per worker, e.g. 8</source>
        <translation>每个工作进程，例如 8</translation>
    </message>
    <message>
        <source>per worker, e.g. 32Gi</source>
        <translation>每个工作进程，例如 32Gi</translation>
    </message>
    <message>
        <source>optional: a Kueue LocalQueue</source>
        <translation>可选：一个 Kueue LocalQueue</translation>
    </message>
    <message>
        <source>How often a failed pod is retried (backoffLimit); evictions and preemptions never count</source>
        <translation>失败的 Pod 重试的次数（backoffLimit）；驱逐和抢占从不计入</translation>
    </message>
    <message>
        <source>The job fails when it has run this long (activeDeadlineSeconds)</source>
        <translation>作业运行这么久后即判为失败（activeDeadlineSeconds）</translation>
    </message>
    <message>
        <source>e.g. 2, 42: exit codes retries would not help</source>
        <translation>例如 2, 42：重试也无济于事的退出码</translation>
    </message>
    <message>
        <source>Delete the finished job from the cluster after this long (ttlSecondsAfterFinished)</source>
        <translation>作业结束后过这么久即从集群中删除（ttlSecondsAfterFinished）</translation>
    </message>
    <message>
        <source>Template</source>
        <translation>模板</translation>
    </message>
    <message>
        <source>Image</source>
        <translation>镜像</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>Memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Queue</source>
        <translation>队列</translation>
    </message>
    <message>
        <source>Retries</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>Deadline</source>
        <translation>截止时间</translation>
    </message>
    <message>
        <source>Fail at once on</source>
        <translation>遇到即失败</translation>
    </message>
    <message>
        <source>Delete when done</source>
        <translation>完成后删除</translation>
    </message>
    <message>
        <source>The objects Run submits, as YAML; edit them freely</source>
        <translation>“运行”将提交的对象，YAML 格式；可随意编辑</translation>
    </message>
    <message>
        <source>Cluster %1</source>
        <translation>集群 %1</translation>
    </message>
    <message>
        <source>optional: a local directory unpacked in the pods at %1</source>
        <translation>可选：一个本地目录，解压到 Pod 中的 %1</translation>
    </message>
    <message>
        <source>in the container: the image&apos;s own</source>
        <translation>在容器中：镜像自身的设置</translation>
    </message>
    <message>
        <source>More than one: an Indexed Job; each pod gets MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK and NODE_RANK for torchrun</source>
        <translation>多于一个时为 Indexed Job；每个 Pod 都会获得供 torchrun 使用的 MASTER_ADDR、MASTER_PORT、WORLD_SIZE、RANK 和 NODE_RANK</translation>
    </message>
    <message>
        <source>Packing the code…</source>
        <translation>正在打包代码…</translation>
    </message>
    <message>
        <source>Packing the code of %1…</source>
        <translation>正在打包 %1 的代码…</translation>
    </message>
    <message>
        <source>Fail at once on: %1</source>
        <translation>遇到即失败：%1</translation>
    </message>
    <message>
        <source>Packing the code first…</source>
        <translation>先打包代码…</translation>
    </message>
    <message>
        <source>Checking with the API server (dry run)…</source>
        <translation>正在与 API 服务器核对（试运行）…</translation>
    </message>
</context>
<context>
    <name>sb::LocalRunPage</name>
    <message>
        <source>This computer</source>
        <translation>本机</translation>
    </message>
</context>
<context>
    <name>sb::LogdirsDialog</name>
    <message>
        <source>TensorBoard logdirs</source>
        <translation>TensorBoard 日志目录</translation>
    </message>
    <message>
        <source>~/runs on this computer, or gpu-box:/data/runs on a node</source>
        <translation>本机上的 ~/runs，或节点上的 gpu-box:/data/runs</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Follow</source>
        <translation>跟踪</translation>
    </message>
    <message>
        <source>Logdir</source>
        <translation>日志目录</translation>
    </message>
    <message>
        <source>Runs named</source>
        <translation>运行命名</translation>
    </message>
    <message>
        <source>Files</source>
        <translation>文件</translation>
    </message>
    <message>
        <source>Points</source>
        <translation>数据点</translation>
    </message>
    <message>
        <source>Skipped</source>
        <translation>已跳过</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Stop following</source>
        <translation>停止跟踪</translation>
    </message>
    <message>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Every directory holding event files is a run; its scalars join the curves as they are written.</source>
        <translation>每个含有事件文件的目录都是一个运行；其标量在写入时即加入曲线。</translation>
    </message>
    <message>
        <source>TensorBoard logdir</source>
        <translation>TensorBoard 日志目录</translation>
    </message>
    <message>
        <source>read at %1</source>
        <translation>读取于 %1</translation>
    </message>
    <message>
        <source>reading…</source>
        <translation>正在读取…</translation>
    </message>
</context>
<context>
    <name>sb::MainWindow</name>
    <message>
        <source>Curves</source>
        <translation>曲线</translation>
    </message>
    <message>
        <source>Jobs</source>
        <translation>作业</translation>
    </message>
    <message>
        <source>Nodes</source>
        <translation>节点</translation>
    </message>
    <message>
        <source>Sweeps</source>
        <translation>超参数搜索</translation>
    </message>
    <message>
        <source>Collector: %1</source>
        <translation>采集器：%1</translation>
    </message>
    <message>
        <source>The collector repaired its store: %1</source>
        <translation>采集器修复了其存储：%1</translation>
    </message>
    <message>
        <source>No job in the Jobs tab made %1: it was logged from outside Signalbox</source>
        <translation>“作业”页中没有作业生成 %1：它是在 Signalbox 之外记录的</translation>
    </message>
    <message>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;New run…</source>
        <translation>新建运行(&amp;N)…</translation>
    </message>
    <message>
        <source>&amp;Open sweep…</source>
        <translation>打开超参数搜索(&amp;O)…</translation>
    </message>
    <message>
        <source>Open TensorBoard &amp;logdir…</source>
        <translation>打开 TensorBoard 日志目录(&amp;L)…</translation>
    </message>
    <message>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <source>&amp;Find</source>
        <translation>查找(&amp;F)</translation>
    </message>
    <message>
        <source>&amp;Theme</source>
        <translation>主题(&amp;T)</translation>
    </message>
    <message>
        <source>As the &amp;system</source>
        <translation>跟随系统(&amp;S)</translation>
    </message>
    <message>
        <source>&amp;Light</source>
        <translation>浅色(&amp;L)</translation>
    </message>
    <message>
        <source>&amp;Dark</source>
        <translation>深色(&amp;D)</translation>
    </message>
    <message>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <source>How to &amp;log metrics</source>
        <translation>如何记录指标(&amp;L)</translation>
    </message>
    <message>
        <source>Open log &amp;folder</source>
        <translation>打开日志文件夹(&amp;F)</translation>
    </message>
    <message>
        <source>This session writes no log file.</source>
        <translation>本次会话不写日志文件。</translation>
    </message>
    <message>
        <source>&amp;About Signalbox</source>
        <translation>关于 Signalbox(&amp;A)</translation>
    </message>
    <message>
        <source>How to log metrics</source>
        <translation>如何记录指标</translation>
    </message>
    <message>
        <source>About Signalbox</source>
        <translation>关于 Signalbox</translation>
    </message>
    <message>
        <source>&lt;h3&gt;Signalbox %1&lt;/h3&gt;&lt;p&gt;One window on all the compute you train on: runs here, on SSH nodes, Kubernetes and Slurm; GPUs; learning curves; sweeps.&lt;/p&gt;&lt;p&gt;Qt %2 · %3&lt;br&gt;%4&lt;/p&gt;</source>
        <translation>&lt;h3&gt;Signalbox %1&lt;/h3&gt;&lt;p&gt;一个窗口掌握你训练所用的全部算力：本机、SSH 节点、Kubernetes 和 Slurm 上的运行；GPU；学习曲线；超参数搜索。&lt;/p&gt;&lt;p&gt;Qt %2 · %3&lt;br&gt;%4&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Dismiss</source>
        <translation>关闭</translation>
    </message>
    <message>
        <source>Quit Signalbox</source>
        <translation>退出 Signalbox</translation>
    </message>
    <message>
        <source>A run on this computer is still going.</source>
        <translation>本机上还有一个运行在进行中。</translation>
    </message>
    <message>
        <source>%1 runs on this computer are still going.</source>
        <translation>本机上还有 %1 个运行在进行中。</translation>
    </message>
    <message>
        <source>They can go on without Signalbox: the next start follows them again, output and curves included. Or stop them now (SIGTERM).</source>
        <translation>它们可以在没有 Signalbox 的情况下继续：下次启动时会重新跟踪它们，包括输出和曲线。也可以现在停止它们（SIGTERM）。</translation>
    </message>
    <message>
        <source>Keep them running</source>
        <translation>让它们继续运行</translation>
    </message>
    <message>
        <source>Stop them and quit</source>
        <translation>停止它们并退出</translation>
    </message>
    <message>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <source>&lt;p&gt;From Python, with the client that ships with Signalbox (&lt;code&gt;pip install clients/python&lt;/code&gt;, standard library only; adapters for Lightning, Hugging Face, Keras and TensorBoard&apos;s &lt;code&gt;SummaryWriter&lt;/code&gt; in &lt;code&gt;signalbox.integrations&lt;/code&gt; and &lt;code&gt;signalbox.tensorboard&lt;/code&gt;):&lt;/p&gt;&lt;pre&gt;import signalbox
signalbox.init(config={&quot;lr&quot;: 0.01})
signalbox.log({&quot;train/loss&quot;: loss}, step=step)&lt;/pre&gt;&lt;p&gt;From any language, print a metric line; every other line is left alone:&lt;/p&gt;&lt;pre&gt;@signalbox {&quot;step&quot;: 12, &quot;loss&quot;: 0.25}&lt;/pre&gt;&lt;p&gt;Runs started from Signalbox get &lt;code&gt;SIGNALBOX_RUN&lt;/code&gt; and &lt;code&gt;SIGNALBOX_COLLECTOR&lt;/code&gt;. TensorBoard event files are read too: File ▸ Open TensorBoard logdir.&lt;/p&gt;</source>
        <translation>&lt;p&gt;在 Python 中，使用 Signalbox 自带的客户端（&lt;code&gt;pip install clients/python&lt;/code&gt;，仅需标准库；Lightning、Hugging Face、Keras 与 TensorBoard 的 &lt;code&gt;SummaryWriter&lt;/code&gt; 的适配器在 &lt;code&gt;signalbox.integrations&lt;/code&gt; 与 &lt;code&gt;signalbox.tensorboard&lt;/code&gt; 中）：&lt;/p&gt;&lt;pre&gt;import signalbox
signalbox.init(config={&quot;lr&quot;: 0.01})
signalbox.log({&quot;train/loss&quot;: loss}, step=step)&lt;/pre&gt;&lt;p&gt;在任何语言中，打印一行指标行即可；其他行不受影响：&lt;/p&gt;&lt;pre&gt;@signalbox {&quot;step&quot;: 12, &quot;loss&quot;: 0.25}&lt;/pre&gt;&lt;p&gt;从 Signalbox 启动的运行会获得 &lt;code&gt;SIGNALBOX_RUN&lt;/code&gt; 和 &lt;code&gt;SIGNALBOX_COLLECTOR&lt;/code&gt;。也会读取 TensorBoard 事件文件：文件 ▸ 打开 TensorBoard 日志目录。&lt;/p&gt;</translation>
    </message>
    <message>
        <source>lab store</source>
        <translation>实验室存储</translation>
    </message>
    <message>
        <source>project %1</source>
        <translation>项目 %1</translation>
    </message>
    <message>
        <source>read only</source>
        <translation>只读</translation>
    </message>
    <message>
        <source>%1 may not read project %2 on this collector: its administrator grants rights with `signalbox-collector users grant`</source>
        <translation>%1 无权读取此收集器上的项目 %2：请管理员用 `signalbox-collector users grant` 授权</translation>
    </message>
    <message>
        <source>The collector at %1 refused the token: a lab&apos;s administrator gives one with `signalbox-collector users add`.</source>
        <translation>%1 处的收集器拒绝了令牌：实验室管理员可用 `signalbox-collector users add` 发放令牌。</translation>
    </message>
    <message>
        <source>Collector token</source>
        <translation>收集器令牌</translation>
    </message>
    <message>
        <source>The token for %1:</source>
        <translation>%1 的令牌：</translation>
    </message>
    <message>
        <source>Keep it in the system keychain</source>
        <translation>保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>The keychain did not keep the token: %1</source>
        <translation>钥匙串未能保存令牌：%1</translation>
    </message>
    <message>
        <source>Enter a token…</source>
        <translation>输入令牌…</translation>
    </message>
</context>
<context>
    <name>sb::MetricLineForwarder</name>
    <message>
        <source>%1: %2 metric line(s) not stored: %3</source>
        <translation>%1：%2 行指标未能保存：%3</translation>
    </message>
</context>
<context>
    <name>sb::NewRunDialog</name>
    <message>
        <source>New run</source>
        <translation>新建运行</translation>
    </message>
    <message>
        <source>Picked among the node&apos;s free GPUs and passed as CUDA_VISIBLE_DEVICES</source>
        <translation>从节点的空闲 GPU 中挑选，并通过 CUDA_VISIBLE_DEVICES 传入</translation>
    </message>
    <message>
        <source>KEY=value, one per line</source>
        <translation>KEY=value，每行一个</translation>
    </message>
    <message>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <source>Working directory</source>
        <translation>工作目录</translation>
    </message>
    <message>
        <source>Code directory</source>
        <translation>代码目录</translation>
    </message>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>GPUs</source>
        <translation>GPU</translation>
    </message>
    <message>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source>Directory</source>
        <translation>目录</translation>
    </message>
    <message>
        <source>Environment</source>
        <translation>环境变量</translation>
    </message>
    <message>
        <source>Copy code from</source>
        <translation>从此处复制代码</translation>
    </message>
    <message>
        <source>Workers</source>
        <translation>工作进程</translation>
    </message>
    <message>
        <source>Reset to the form</source>
        <translation>按表单重置</translation>
    </message>
    <message>
        <source>Edited by hand: changes in the form no longer apply</source>
        <translation>已手动编辑：表单中的更改不再生效</translation>
    </message>
</context>
<context>
    <name>sb::NewRunPage</name>
    <message>
        <source>optional: a local directory copied to the node first</source>
        <translation>可选：一个本地目录，先复制到节点上</translation>
    </message>
    <message>
        <source>on the node: the copied code, else the home directory</source>
        <translation>在节点上：复制过去的代码，否则为主目录</translation>
    </message>
</context>
<context>
    <name>sb::NodeCard</name>
    <message>
        <source>CPU (blue) and memory (purple), last 10 minutes</source>
        <translation>CPU（蓝）和内存（紫），最近 10 分钟</translation>
    </message>
    <message>
        <source>PID</source>
        <translation>PID</translation>
    </message>
    <message>
        <source>User</source>
        <translation>用户</translation>
    </message>
    <message>
        <source>CPU%</source>
        <translation>CPU%</translation>
    </message>
    <message>
        <source>MEM%</source>
        <translation>内存%</translation>
    </message>
    <message>
        <source>Time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Command</source>
        <translation>命令</translation>
    </message>
    <message>
        <source> · last seen %1</source>
        <translation> · 最后可见于 %1</translation>
    </message>
    <message>
        <source>Trust host key…</source>
        <translation>信任主机密钥…</translation>
    </message>
    <message>
        <source>Enter passphrase…</source>
        <translation>输入口令…</translation>
    </message>
    <message>
        <source>Retry now</source>
        <translation>立即重试</translation>
    </message>
    <message>
        <source>Retry</source>
        <translation>重试</translation>
    </message>
    <message>
        <source>cannot read the node: %1</source>
        <translation>无法读取节点：%1</translation>
    </message>
    <message>
        <source>no GPUs (no nvidia-smi)</source>
        <translation>没有 GPU（没有 nvidia-smi）</translation>
    </message>
    <message>
        <source>%1 of %2 GPUs free</source>
        <translation>%2 个 GPU 中 %1 个空闲</translation>
    </message>
    <message>
        <source>CPU %1% of %2 cores · memory %3 / %4 GiB · swap %5 / %6 GiB · load %7 %8 %9 · %10</source>
        <translation>CPU %1%，共 %2 核 · 内存 %3 / %4 GiB · 交换 %5 / %6 GiB · 负载 %7 %8 %9 · %10</translation>
    </message>
    <message>
        <source>Edit node…</source>
        <translation>编辑节点…</translation>
    </message>
    <message>
        <source>Remove node</source>
        <translation>移除节点</translation>
    </message>
    <message>
        <source>SM %1 MHz</source>
        <translation>SM %1 MHz</translation>
    </message>
    <message>
        <source>memory %1 MHz</source>
        <translation>显存 %1 MHz</translation>
    </message>
    <message>
        <source>fan %1%</source>
        <translation>风扇 %1%</translation>
    </message>
    <message>
        <source>ECC errors: %1</source>
        <translation>ECC 错误：%1</translation>
    </message>
    <message>
        <source>throttled: %1</source>
        <translation>降频：%1</translation>
    </message>
    <message>
        <source>History…</source>
        <translation>历史…</translation>
    </message>
</context>
<context>
    <name>sb::NodeHistory</name>
    <message>
        <source>GPU utilization (%)</source>
        <translation>GPU 利用率（%）</translation>
    </message>
    <message>
        <source>GPU memory in use (%)</source>
        <translation>已用 GPU 显存（%）</translation>
    </message>
    <message>
        <source>CPU and memory (%)</source>
        <translation>CPU 与内存（%）</translation>
    </message>
    <message>
        <source>%1: history</source>
        <translation>%1：历史</translation>
    </message>
    <message>
        <source>Last hour</source>
        <translation>最近一小时</translation>
    </message>
    <message>
        <source>Last 6 hours</source>
        <translation>最近 6 小时</translation>
    </message>
    <message>
        <source>Last day</source>
        <translation>最近一天</translation>
    </message>
    <message>
        <source>Last week</source>
        <translation>最近一周</translation>
    </message>
    <message>
        <source>Refresh</source>
        <translation>刷新</translation>
    </message>
    <message>
        <source>time</source>
        <translation>时间</translation>
    </message>
    <message>
        <source>Loading…</source>
        <translation>正在加载…</translation>
    </message>
    <message>
        <source>The collector could not be asked: %1</source>
        <translation>无法询问收集器：%1</translation>
    </message>
    <message>
        <source>No history of %1 yet: it is kept from the first sample on, a point every %2 s.</source>
        <translation>%1 还没有历史：从第一个样本起保存，每 %2 秒一个点。</translation>
    </message>
    <message>
        <source>GPU %1</source>
        <translation>GPU %1</translation>
    </message>
    <message>
        <source>CPU</source>
        <translation>CPU</translation>
    </message>
    <message>
        <source>memory</source>
        <translation>内存</translation>
    </message>
    <message>
        <source>Nothing recorded in this span.</source>
        <translation>这段时间内没有记录。</translation>
    </message>
    <message>
        <source>A point every %1 s, at most one a pixel.</source>
        <translation>每 %1 秒一个点，每像素最多一个。</translation>
    </message>
</context>
<context>
    <name>sb::NodeStatus</name>
    <message>
        <source>connecting</source>
        <translation>正在连接</translation>
    </message>
    <message>
        <source>connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>unreachable</source>
        <translation>无法连通</translation>
    </message>
    <message>
        <source>unknown host key</source>
        <translation>未知主机密钥</translation>
    </message>
    <message>
        <source>host key changed</source>
        <translation>主机密钥已更改</translation>
    </message>
    <message>
        <source>needs passphrase</source>
        <translation>需要口令</translation>
    </message>
    <message>
        <source>login refused</source>
        <translation>登录被拒绝</translation>
    </message>
</context>
<context>
    <name>sb::NodesView</name>
    <message>
        <source>Filter nodes, GPUs, users, commands…</source>
        <translation>筛选节点、GPU、用户、命令…</translation>
    </message>
    <message>
        <source>All nodes</source>
        <translation>所有节点</translation>
    </message>
    <message>
        <source>Nodes with free GPUs</source>
        <translation>有空闲 GPU 的节点</translation>
    </message>
    <message>
        <source>Sort by name</source>
        <translation>按名称排序</translation>
    </message>
    <message>
        <source>Most free GPUs first</source>
        <translation>空闲 GPU 最多的在前</translation>
    </message>
    <message>
        <source>Busiest GPUs first</source>
        <translation>GPU 最忙的在前</translation>
    </message>
    <message>
        <source>Add node…</source>
        <translation>添加节点…</translation>
    </message>
    <message>
        <source>Import from ~/.ssh/config…</source>
        <translation>从 ~/.ssh/config 导入…</translation>
    </message>
    <message>
        <source>this computer</source>
        <translation>本机</translation>
    </message>
    <message>
        <source>Remove node</source>
        <translation>移除节点</translation>
    </message>
    <message>
        <source>Stop watching %1 and remove it from the config?</source>
        <translation>停止监视 %1 并将其从配置中移除？</translation>
    </message>
    <message>
        <source>Unknown host key</source>
        <translation>未知主机密钥</translation>
    </message>
    <message>
        <source>Signalbox has never connected to %1 (%2:%3).

Its host key fingerprint is
%4

Compare it with the one the node&apos;s administrator gives you (ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub on the node). Trust this key and connect?</source>
        <translation>Signalbox 从未连接过 %1（%2:%3）。

其主机密钥指纹为
%4

请与节点管理员提供的指纹比对（在节点上运行 ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub）。信任此密钥并连接？</translation>
    </message>
    <message>
        <source>Key passphrase</source>
        <translation>密钥口令</translation>
    </message>
    <message>
        <source>Keep it in the system keychain</source>
        <translation>保存在系统钥匙串中</translation>
    </message>
    <message>
        <source>The key %1 for %2 is protected by a passphrase.</source>
        <translation>%2 的密钥 %1 受口令保护。</translation>
    </message>
    <message>
        <source>Passphrase</source>
        <translation>口令</translation>
    </message>
    <message>
        <source>The keychain did not keep the passphrase: %1</source>
        <translation>钥匙串没有保存口令：%1</translation>
    </message>
    <message>
        <source>Not saving nodes: %1</source>
        <translation>未保存节点：%1</translation>
    </message>
    <message>
        <source>Not saving nodes: fix these entries of %1 first: %2</source>
        <translation>未保存节点：请先修正 %1 中的这些条目：%2</translation>
    </message>
    <message>
        <source>Cannot import hosts: %1</source>
        <translation>无法导入主机：%1</translation>
    </message>
    <message>
        <source>Import hosts from ~/.ssh/config</source>
        <translation>从 ~/.ssh/config 导入主机</translation>
    </message>
    <message>
        <source>~/.ssh/config names no concrete hosts.</source>
        <translation>~/.ssh/config 中没有具体的主机。</translation>
    </message>
    <message>
        <source>Watch these hosts:</source>
        <translation>监视这些主机：</translation>
    </message>
    <message>
        <source>No node matches the filter.</source>
        <translation>没有与筛选条件匹配的节点。</translation>
    </message>
    <message>
        <source>&lt;b&gt;No SSH nodes yet.&lt;/b&gt; &lt;a href=&quot;add&quot;&gt;Add a node…&lt;/a&gt; or &lt;a href=&quot;import&quot;&gt;import hosts from ~/.ssh/config&lt;/a&gt; to watch the lab&apos;s GPU boxes beside this computer and run on their free GPUs. Nodes are kept in %1.</source>
        <translation>&lt;b&gt;还没有 SSH 节点。&lt;/b&gt;&lt;a href=&quot;add&quot;&gt;添加节点…&lt;/a&gt;或&lt;a href=&quot;import&quot;&gt;从 ~/.ssh/config 导入主机&lt;/a&gt;，即可在本机旁监视实验室的 GPU 服务器，并在其空闲 GPU 上运行。节点保存在 %1。</translation>
    </message>
    <message>
        <source>Cards</source>
        <translation>卡片</translation>
    </message>
    <message>
        <source>Compact</source>
        <translation>紧凑</translation>
    </message>
    <message>
        <source>A card per node, or a row per GPU for many nodes</source>
        <translation>每个节点一张卡片，或节点多时每块 GPU 一行</translation>
    </message>
    <message>
        <source>cluster %1: %2</source>
        <translation>集群 %1：%2</translation>
    </message>
    <message>
        <source>job %1 on %2</source>
        <translation>作业 %1，位于 %2</translation>
    </message>
</context>
<context>
    <name>sb::Notifier</name>
    <message>
        <source>A run succeeded</source>
        <translation>运行成功</translation>
    </message>
    <message>
        <source>A run failed</source>
        <translation>运行失败</translation>
    </message>
    <message>
        <source>A run was stopped</source>
        <translation>运行被停止</translation>
    </message>
    <message>
        <source>A run waits long for a place to run</source>
        <translation>运行等待调度过久</translation>
    </message>
    <message>
        <source>A run stopped printing (stalled)</source>
        <translation>运行停止输出（停滞）</translation>
    </message>
    <message>
        <source>%1 succeeded</source>
        <translation>%1 已成功</translation>
    </message>
    <message>
        <source>on %1, after %2</source>
        <translation>在 %1 上，用时 %2</translation>
    </message>
    <message>
        <source>%1 failed</source>
        <translation>%1 已失败</translation>
    </message>
    <message>
        <source>on %1</source>
        <translation>在 %1 上</translation>
    </message>
    <message>
        <source>on %1: %2</source>
        <translation>在 %1 上：%2</translation>
    </message>
    <message>
        <source>%1 was stopped</source>
        <translation>%1 被停止</translation>
    </message>
    <message>
        <source>before it started</source>
        <translation>在启动之前</translation>
    </message>
    <message>
        <source>after %1</source>
        <translation>运行 %1 后</translation>
    </message>
    <message>
        <source>%1 is still waiting</source>
        <translation>%1 仍在等待</translation>
    </message>
    <message>
        <source>for %1: %2</source>
        <translation>已等待 %1：%2</translation>
    </message>
    <message>
        <source>%1 may have stalled</source>
        <translation>%1 可能已停滞</translation>
    </message>
    <message>
        <source>no output for %1 on %2</source>
        <translation>%2 上已 %1 没有输出</translation>
    </message>
    <message>
        <source>Show</source>
        <translation>显示</translation>
    </message>
    <message>
        <source>Signalbox: nothing running</source>
        <translation>Signalbox：没有运行中的任务</translation>
    </message>
    <message numerus="yes">
        <source>Signalbox: %n running</source>
        <translation>
            <numerusform>Signalbox：%n 个运行中</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>sb::ParallelCoordinates</name>
    <message>
        <source>a metric</source>
        <translation>某个指标</translation>
    </message>
    <message>
        <source>The parallel coordinates appear when runs log %1</source>
        <translation>运行记录 %1 后显示平行坐标</translation>
    </message>
</context>
<context>
    <name>sb::RunQuery</name>
    <message>
        <source>column %1: %2</source>
        <translation>第 %1 列：%2</translation>
    </message>
    <message>
        <source>%1 is never closed</source>
        <translation>%1 没有闭合</translation>
    </message>
    <message>
        <source>unexpected character “%1”</source>
        <translation>意外的字符“%1”</translation>
    </message>
    <message>
        <source>expected “and”, “or” or the end, found “%1”</source>
        <translation>此处应为“and”、“or”或结尾，却是“%1”</translation>
    </message>
    <message>
        <source>nested deeper than %1</source>
        <translation>嵌套超过 %1 层</translation>
    </message>
    <message>
        <source>expected “)”, found %1</source>
        <translation>此处应为“)”，却是%1</translation>
    </message>
    <message>
        <source>the end</source>
        <translation>结尾</translation>
    </message>
    <message>
        <source>expected a field (a metric, config.KEY, status, tags…), found %1</source>
        <translation>此处应为字段（指标、config.KEY、status、tags…），却是%1</translation>
    </message>
    <message>
        <source>expected a metric&apos;s name, found %1</source>
        <translation>此处应为指标名称，却是%1</translation>
    </message>
    <message>
        <source>“%1” is not a function: last, min, max, best, count or step of a metric</source>
        <translation>“%1”不是函数：可用指标的 last、min、max、best、count 或 step</translation>
    </message>
    <message>
        <source>“%1” names no key: %1KEY</source>
        <translation>“%1”没有指明键：%1KEY</translation>
    </message>
    <message>
        <source>expected an operator (=, !=, &lt;, &lt;=, &gt;, &gt;=, ~, !~, has, in) after the field, found %1</source>
        <translation>字段之后应为运算符（=、!=、&lt;、&lt;=、&gt;、&gt;=、~、!~、has、in），却是%1</translation>
    </message>
    <message>
        <source>“%1” is not a number, a duration (90s, 5m, 2h, 7d, 1w) or a date (2026-11-20, 2026-11-20T13:00)</source>
        <translation>“%1”不是数字、时长（90s、5m、2h、7d、1w）或日期（2026-11-20、2026-11-20T13:00）</translation>
    </message>
    <message>
        <source>expected a value (a number, &quot;text&quot;, a word, a date…), found %1</source>
        <translation>此处应为值（数字、&quot;文本&quot;、词语、日期…），却是%1</translation>
    </message>
    <message>
        <source>expected “(” and a list of values after “in”, found %1</source>
        <translation>“in”之后应为“(”和值的列表，却是%1</translation>
    </message>
    <message>
        <source>expected “,” or “)”, found %1</source>
        <translation>此处应为“,”或“)”，却是%1</translation>
    </message>
    <message>
        <source>not a regular expression: %1</source>
        <translation>不是有效的正则表达式：%1</translation>
    </message>
    <message>
        <source>the query is %1 characters long, more than %2</source>
        <translation>查询长 %1 个字符，超过 %2</translation>
    </message>
    <message>
        <source>the query is empty</source>
        <translation>查询为空</translation>
    </message>
</context>
<context>
    <name>sb::RunScatter</name>
    <message>
        <source>No run has both values</source>
        <translation>没有运行同时具有这两个值</translation>
    </message>
</context>
<context>
    <name>sb::RunStatus</name>
    <message>
        <source>lost</source>
        <translation>已失联</translation>
    </message>
    <message>
        <source>crashed</source>
        <translation>已崩溃</translation>
    </message>
    <message>
        <source>running</source>
        <translation>运行中</translation>
    </message>
    <message>
        <source>finished</source>
        <translation>已完成</translation>
    </message>
    <message>
        <source>failed</source>
        <translation>已失败</translation>
    </message>
    <message>
        <source>stopped</source>
        <translation>已停止</translation>
    </message>
</context>
<context>
    <name>sb::RunsModel</name>
    <message>
        <source>Run</source>
        <translation>运行</translation>
    </message>
    <message>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>Host</source>
        <translation>主机</translation>
    </message>
    <message>
        <source>last %1 at step %2</source>
        <translation>第 %2 步的最新值 %1</translation>
    </message>
    <message>
        <source>; smallest %1, largest %2</source>
        <translation>；最小 %1，最大 %2</translation>
    </message>
    <message>
        <source>Tags</source>
        <translation>标签</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
    <message>
        <source>%1 (min)</source>
        <translation>%1（最小）</translation>
    </message>
    <message>
        <source>%1 (max)</source>
        <translation>%1（最大）</translation>
    </message>
    <message>
        <source>%1 (best)</source>
        <translation>%1（最佳）</translation>
    </message>
</context>
<context>
    <name>sb::SampleSection</name>
    <message>
        <source>Distributions</source>
        <translation>分布</translation>
    </message>
    <message>
        <source>Histograms (offset)</source>
        <translation>直方图（错开）</translation>
    </message>
    <message>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <source>Render the texts as Markdown, as TensorBoard does (no HTML; nothing they name is loaded)</source>
        <translation>像 TensorBoard 一样将文本渲染为 Markdown（不含 HTML；不加载其中引用的任何内容）</translation>
    </message>
    <message>
        <source>The step shown: each run&apos;s last item at or before it</source>
        <translation>显示的步数：每个运行在该步或之前的最后一项</translation>
    </message>
    <message>
        <source>Each run&apos;s histogram at the step, in its colour</source>
        <translation>各运行在该步的直方图，以其颜色显示</translation>
    </message>
    <message>
        <source>no items yet</source>
        <translation>还没有条目</translation>
    </message>
    <message>
        <source>step %1 (%2 of %3)</source>
        <translation>第 %1 步（%3 中的第 %2 个）</translation>
    </message>
    <message>
        <source>step %1</source>
        <translation>第 %1 步</translation>
    </message>
    <message>
        <source>, the first of %1</source>
        <translation>，%1 个中的第一个</translation>
    </message>
    <message>
        <source>no items</source>
        <translation>没有条目</translation>
    </message>
    <message>
        <source>nothing at or before this step</source>
        <translation>该步及之前没有条目</translation>
    </message>
    <message>
        <source>, %1 × %2</source>
        <translation>，%1 × %2</translation>
    </message>
    <message>
        <source>cannot show it: %1</source>
        <translation>无法显示：%1</translation>
    </message>
    <message>
        <source>, %1 values from %2 to %3</source>
        <translation>，%1 个值，从 %2 到 %3</translation>
    </message>
    <message>
        <source>, the first 64 KiB of %1 bytes</source>
        <translation>，%1 字节中的前 64 KiB</translation>
    </message>
    <message>
        <source>, %1 Hz, %2 s, %3</source>
        <translation>，%1 Hz，%2 秒，%3</translation>
    </message>
    <message>
        <source>mono</source>
        <translation>单声道</translation>
    </message>
    <message>
        <source>%1 channels</source>
        <translation>%1 声道</translation>
    </message>
</context>
<context>
    <name>sb::SamplesPanel</name>
    <message>
        <source>None of the shown runs has logged images, histograms, text or audio.
Log them with signalbox.Image, Histogram, Text or Audio (see the README), or follow a TensorBoard logdir that has them.</source>
        <translation>所显示的运行都没有记录图像、直方图、文本或音频。
请用 signalbox.Image、Histogram、Text 或 Audio 记录（见 README），或跟踪包含它们的 TensorBoard 日志目录。</translation>
    </message>
</context>
<context>
    <name>sb::SettingsDialog</name>
    <message>
        <source> min</source>
        <translation> 分钟</translation>
    </message>
    <message>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <source>As the system</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <source>Signalbox speaks it from its next start.</source>
        <translation>Signalbox 将从下次启动起使用该语言。</translation>
    </message>
    <message>
        <source>Appearance</source>
        <translation>外观</translation>
    </message>
    <message>
        <source>Theme</source>
        <translation>主题</translation>
    </message>
    <message>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <source>Desktop notifications</source>
        <translation>桌面通知</translation>
    </message>
    <message>
        <source>A wait is long after</source>
        <translation>等待多久算作过长</translation>
    </message>
    <message>
        <source>A silence is a stall after</source>
        <translation>静默多久算作停滞</translation>
    </message>
    <message>
        <source>Log</source>
        <translation>日志</translation>
    </message>
    <message>
        <source>none in this session</source>
        <translation>本次会话没有日志文件</translation>
    </message>
    <message>
        <source>Open log folder</source>
        <translation>打开日志文件夹</translation>
    </message>
    <message>
        <source>Written to</source>
        <translation>写入位置</translation>
    </message>
</context>
<context>
    <name>sb::SlurmBackend</name>
    <message>
        <source>The cluster would refuse it: %1</source>
        <translation>集群会拒绝它：%1</translation>
    </message>
</context>
<context>
    <name>sb::SlurmRunPage</name>
    <message>
        <source>default</source>
        <translation>默认</translation>
    </message>
    <message>
        <source>Partition</source>
        <translation>分区</translation>
    </message>
    <message>
        <source>Account</source>
        <translation>账户</translation>
    </message>
    <message>
        <source>QoS</source>
        <translation>QoS</translation>
    </message>
    <message>
        <source>Time limit</source>
        <translation>时间限制</translation>
    </message>
    <message>
        <source>CPUs per node</source>
        <translation>每节点 CPU 数</translation>
    </message>
    <message>
        <source>Memory per node</source>
        <translation>每节点内存</translation>
    </message>
    <message>
        <source>GPU type</source>
        <translation>GPU 型号</translation>
    </message>
    <message>
        <source>After</source>
        <translation>依赖</translation>
    </message>
    <message>
        <source>e.g. afterok:1234 (sbatch --dependency); empty: none</source>
        <translation>例如 afterok:1234（sbatch --dependency）；留空：无</translation>
    </message>
    <message>
        <source>the cluster&apos;s default</source>
        <translation>集群默认值</translation>
    </message>
    <message>
        <source>e.g. 4:00:00 or 2-00:00:00; empty: the partition&apos;s</source>
        <translation>例如 4:00:00 或 2-00:00:00；留空：使用分区的设置</translation>
    </message>
    <message>
        <source>e.g. 64G; empty: the partition&apos;s</source>
        <translation>例如 64G；留空：使用分区的设置</translation>
    </message>
    <message>
        <source>e.g. h100; empty: any</source>
        <translation>例如 h100；留空：任意</translation>
    </message>
    <message>
        <source>What sbatch receives, editable; sbatch adds the job name, the output file and SIGNALBOX_RUN</source>
        <translation>sbatch 收到的内容，可编辑；sbatch 会加上作业名、输出文件和 SIGNALBOX_RUN</translation>
    </message>
    <message>
        <source>Slurm cluster %1</source>
        <translation>Slurm 集群 %1</translation>
    </message>
    <message>
        <source>optional: a local directory copied to the cluster&apos;s workspace, where the job starts</source>
        <translation>可选：一个本地目录，复制到集群的工作区，作业从那里启动</translation>
    </message>
    <message>
        <source>on the cluster: the run&apos;s directory in the workspace</source>
        <translation>在集群上：运行在工作区中的目录</translation>
    </message>
    <message>
        <source>Nodes, one task each under srun, with MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK and NODE_RANK for torchrun</source>
        <translation>节点数，每个节点在 srun 下运行一个任务，并获得供 torchrun 使用的 MASTER_ADDR、MASTER_PORT、WORLD_SIZE、RANK 和 NODE_RANK</translation>
    </message>
    <message>
        <source>Asking %1 for its free GPUs…</source>
        <translation>正在询问 %1 的空闲 GPU…</translation>
    </message>
    <message>
        <source>%1 did not say (%2)</source>
        <translation>%1 没有回答（%2）</translation>
    </message>
    <message>
        <source>Checking with the cluster (sbatch --test-only)…</source>
        <translation>正在与集群核对（sbatch --test-only）…</translation>
    </message>
</context>
<context>
    <name>sb::SshBackend</name>
    <message>
        <source>connected</source>
        <translation>已连接</translation>
    </message>
    <message>
        <source>no GPUs</source>
        <translation>没有 GPU</translation>
    </message>
    <message>
        <source>%1 of %2 GPUs free</source>
        <translation>%2 个 GPU 中 %1 个空闲</translation>
    </message>
</context>
<context>
    <name>sb::SshRunPage</name>
    <message>
        <source>Any node with enough free GPUs</source>
        <translation>任一有足够空闲 GPU 的节点</translation>
    </message>
    <message>
        <source>Node %1</source>
        <translation>节点 %1</translation>
    </message>
    <message>
        <source>Node %1 — %2</source>
        <translation>节点 %1 — %2</translation>
    </message>
</context>
<context>
    <name>sb::Sweep</name>
    <message>
        <source>stopped after %1 failed trials in a row (%2)</source>
        <translation>连续 %1 个试验失败后已停止（%2）</translation>
    </message>
    <message>
        <source>%1: no %2 backend to run the trials on</source>
        <translation>%1：没有运行试验的 %2 后端</translation>
    </message>
    <message>
        <source>%1: run_cap: a random sweep on a cluster needs one (it is the Indexed Job&apos;s number of trials)</source>
        <translation>%1：run_cap：集群上的随机搜索需要设置它（即 Indexed Job 的试验数）</translation>
    </message>
    <message>
        <source>%1: cannot read the sweep&apos;s state (%2)</source>
        <translation>%1：无法读取超参数搜索的状态（%2）</translation>
    </message>
    <message>
        <source>%1: not a sweep&apos;s state (%2)</source>
        <translation>%1：不是超参数搜索的状态（%2）</translation>
    </message>
    <message>
        <source>unknown version</source>
        <translation>未知版本</translation>
    </message>
    <message>
        <source>%1 has tried every combination of its grid</source>
        <translation>%1 已尝试其网格中的所有组合</translation>
    </message>
    <message>
        <source>%1 · %2 trials done</source>
        <translation>%1 · 已完成 %2 个试验</translation>
    </message>
    <message>
        <source> of %1</source>
        <translation> / %1</translation>
    </message>
    <message>
        <source>, %1 running, %2 queued</source>
        <translation>，%1 个运行中，%2 个排队中</translation>
    </message>
    <message>
        <source>, %1 stopped early</source>
        <translation>，%1 个提前停止</translation>
    </message>
    <message>
        <source> · target %1 reached</source>
        <translation> · 已达到目标 %1</translation>
    </message>
    <message>
        <source>%1: trial %2 could not start: %3</source>
        <translation>%1：试验 %2 无法启动：%3</translation>
    </message>
    <message>
        <source>%1: %2 trials are more than one Indexed Job holds (%3); lower run_cap</source>
        <translation>%1：%2 个试验超过了一个 Indexed Job 的容量（%3）；请降低 run_cap</translation>
    </message>
    <message>
        <source>%1: the trials could not start: %2</source>
        <translation>%1：试验无法启动：%2</translation>
    </message>
    <message>
        <source>%1: cannot read %2 from the collector: %3</source>
        <translation>%1：无法从采集器读取 %2：%3</translation>
    </message>
    <message>
        <source>stopped early by hyperband after %1 values</source>
        <translation>在 %1 个值后被 Hyperband 提前停止</translation>
    </message>
    <message>
        <source>%1: cannot save the sweep&apos;s state: %2</source>
        <translation>%1：无法保存超参数搜索的状态：%2</translation>
    </message>
</context>
<context>
    <name>sb::SweepRegistry</name>
    <message>
        <source>A sweep was not resumed: %1</source>
        <translation>有一个超参数搜索未能恢复：%1</translation>
    </message>
</context>
<context>
    <name>sb::SweepsView</name>
    <message>
        <source>Stop</source>
        <translation>停止</translation>
    </message>
    <message>
        <source>Extend</source>
        <translation>扩展</translation>
    </message>
    <message>
        <source>Show curves</source>
        <translation>显示曲线</translation>
    </message>
    <message>
        <source>Double-click a trial for its curve alone</source>
        <translation>双击某个试验，单独查看其曲线</translation>
    </message>
    <message>
        <source>No sweeps yet</source>
        <translation>还没有超参数搜索</translation>
    </message>
    <message>
        <source> trials</source>
        <translation> 个试验</translation>
    </message>
    <message>
        <source>Open sweep…</source>
        <translation>打开超参数搜索…</translation>
    </message>
    <message>
        <source>A W&amp;B sweep YAML with a signalbox: section for where trials run</source>
        <translation>一个 W&amp;B 超参数搜索 YAML，其中的 signalbox: 部分说明试验在哪里运行</translation>
    </message>
    <message>
        <source>Sweep:</source>
        <translation>超参数搜索：</translation>
    </message>
    <message>
        <source>No trial has started yet.</source>
        <translation>还没有试验启动。</translation>
    </message>
    <message>
        <source>&lt;p&gt;&lt;b&gt;No sweeps yet&lt;/b&gt;&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;open&quot;&gt;Open a sweep…&lt;/a&gt; (Ctrl+O): a Weights &amp;amp; Biases sweep YAML with a &lt;code&gt;signalbox:&lt;/code&gt; section that says where its trials run (this computer, SSH nodes&apos; free GPUs, a Kubernetes or Slurm cluster). Examples: %1&lt;/p&gt;</source>
        <translation>&lt;p&gt;&lt;b&gt;还没有超参数搜索&lt;/b&gt;&lt;/p&gt;&lt;p&gt;&lt;a href=&quot;open&quot;&gt;打开超参数搜索…&lt;/a&gt;（Ctrl+O）：一个 Weights &amp;amp; Biases 超参数搜索 YAML，其中的 &lt;code&gt;signalbox:&lt;/code&gt; 部分说明试验在哪里运行（本机、SSH 节点的空闲 GPU、Kubernetes 或 Slurm 集群）。示例：%1&lt;/p&gt;</translation>
    </message>
    <message>
        <source>Open a sweep</source>
        <translation>打开超参数搜索</translation>
    </message>
    <message>
        <source>Sweep files (*.yaml *.yml)</source>
        <translation>超参数搜索文件 (*.yaml *.yml)</translation>
    </message>
    <message>
        <source>Open a sweep file (the W&amp;B sweep YAML) to run its trials on this computer, SSH nodes&apos; free GPUs, a Kubernetes or a Slurm cluster.</source>
        <translation>打开超参数搜索文件（W&amp;B 超参数搜索 YAML），即可在本机、SSH 节点的空闲 GPU、Kubernetes 或 Slurm 集群上运行其试验。</translation>
    </message>
</context>
<context>
    <name>sb::SystemHistory</name>
    <message>
        <source>GPU history: the collector has not taken it for hours; the oldest is dropped</source>
        <translation>GPU 历史：收集器已数小时未接收，最旧的部分被丢弃</translation>
    </message>
    <message>
        <source>GPU history not stored yet: %1</source>
        <translation>GPU 历史尚未保存：%1</translation>
    </message>
</context>
<context>
    <name>sb::TrialsModel</name>
    <message>
        <source>stopped early</source>
        <translation>提前停止</translation>
    </message>
    <message>
        <source>Trial</source>
        <translation>试验</translation>
    </message>
    <message>
        <source>State</source>
        <translation>状态</translation>
    </message>
    <message>
        <source>%1 (last)</source>
        <translation>%1（最新）</translation>
    </message>
    <message>
        <source>%1 (best)</source>
        <translation>%1（最佳）</translation>
    </message>
    <message>
        <source>Runtime</source>
        <translation>运行时长</translation>
    </message>
    <message>
        <source>Where</source>
        <translation>位置</translation>
    </message>
    <message>
        <source>Note</source>
        <translation>备注</translation>
    </message>
</context>
</TS>
