// Placeholder replaced by the real benchmark below in this series.
int main()
{
  return 0;
}
